r"""The peers of MindPilot under the same ``propose(k)`` / ``observe(images, rewards)`` API.

- :class:`RandomPool`: uniform random unseen pool images;
- :class:`GreedyRetrieval`: greedy kNN hill-climbing in the pool (the next image is drawn among the
  ``top_k`` unseen neighbours of the best image seen so far);
- :class:`GPUCB`: GP-UCB Bayesian optimisation (ours, gpytorch): an exact GP with an RBF kernel whose
  hyper-parameters are fitted by maximising the marginal likelihood after each batch, and the next point
  :math:`\arg\max_z \mu(z) + \kappa\,\sigma(z)` (:math:`\kappa = 2.5`, 10 initial points, as in the official
  benchmark configuration) over the unseen pool embeddings (``space="pool"``), over Gaussian draws in
  embedding space rendered by the generator (``space="embedding"``), or over fresh isotropic Gaussian
  directions rendered by the generator (``space="directions"``, the official benchmark's proposals: its
  ``BayesianOptimizationWrapper`` draws 100 normalised ``randn`` vectors per step);
- :class:`BoTorchUCB`: the same with BoTorch's ``SingleTaskGP``, ``fit_gpytorch_mll`` and
  ``UpperConfidenceBound`` (:math:`\beta = \kappa^2`, BoTorch's convention :math:`\mu + \sqrt\beta\,\sigma`),
  evaluated on every candidate and the top ``batch`` taken (what ``optimize_acqf_discrete`` does, without its
  chunking) over the same candidates;
- :class:`CMAES`: CMA-ES (the ``cma`` package, population 8, :math:`\sigma_0 = 0.5` as in the benchmark
  configuration) in embedding space, each candidate rendered by the generator.
"""
from __future__ import annotations

import math

import numpy as np

from iclr26sci.core import InputError, as_generator, check_in_range, check_option, check_positive_int, resolve_rng

from ._base import BlackBoxStimulusOptimizer, _check_callable, _check_generated, _check_pool, _embed
from ._checks import check_device, check_device_name

__all__ = ["RandomPool", "GreedyRetrieval", "GPUCB", "BoTorchUCB", "CMAES"]


def _unit(Z):
    n = np.linalg.norm(Z, axis=1, keepdims=True)
    return Z / np.where(n > 0, n, 1.0)


class RandomPool(BlackBoxStimulusOptimizer):
    """Random sampling of unseen pool images (the floor every method must beat).

    Parameters
    ----------
    pool : array (N, *image_shape)
        Candidate images.
    rng : int or Generator, optional
        Seed.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import RandomPool, run_loop
    >>> pool = np.random.default_rng(0).random((20, 2, 2))
    >>> run_loop(RandomPool(pool, rng=0), lambda x: x.sum(axis=(1, 2)), query_budget=5).queries
    5
    """

    def __init__(self, pool, *, rng=None, random_state=None):
        self.pool = pool
        self.rng = rng
        self.random_state = random_state
        self._check_params()

    def _check_params(self):
        self.pool_ = _check_pool(self.pool)
        self._rng = as_generator(resolve_rng(self.rng, self.random_state))

    def _start(self):
        self._check_params()
        self.seen_ = np.zeros(len(self.pool_), dtype=bool)

    def _propose(self, k):
        avail = np.nonzero(~self.seen_)[0]
        if len(avail) == 0:
            return self.pool_[:0], {"pool_idx": avail}
        idx = self._rng.choice(avail, size=min(k, len(avail)), replace=False)
        return self.pool_[idx], {"pool_idx": idx}

    def _observe(self, images, rewards, meta):
        if meta is not None:
            self.seen_[meta["pool_idx"][:len(rewards)]] = True


class GreedyRetrieval(BlackBoxStimulusOptimizer):
    """Greedy kNN retrieval: after ``n_init`` random images, one of the ``top_k`` unseen nearest pool
    neighbours (cosine of embeddings) of the best image so far, drawn at random.

    Parameters
    ----------
    embedder : callable
        ``embedder(images) -> (n, d)``.
    pool : array (N, *image_shape)
        Candidate images.
    n_init : int, default 10
        Random images first.
    top_k : int, default 20
        Neighbourhood size; at most the pool size.
    rng : int or Generator, optional
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import GreedyRetrieval, PCAEmbedder, run_loop
    >>> pool = np.random.default_rng(0).random((60, 3, 3))
    >>> opt = GreedyRetrieval(PCAEmbedder(3).fit(pool), pool, top_k=5, rng=0)
    >>> run_loop(opt, lambda x: x.mean(axis=(1, 2)), query_budget=15).queries
    15
    """

    def __init__(self, embedder, pool, *, n_init=10, top_k=20, rng=None, random_state=None):
        self.embedder = embedder
        self.pool = pool
        self.n_init = n_init
        self.top_k = top_k
        self.rng = rng
        self.random_state = random_state
        self._check_params()

    def _check_params(self):
        _check_callable(self.embedder, "embedder", "a callable images -> (n, d) embeddings")
        self.pool_ = _check_pool(self.pool)
        self._n_init = check_positive_int(self.n_init, "n_init")
        self._top_k = check_positive_int(self.top_k, "top_k")
        if self._top_k > len(self.pool_):
            raise InputError("top_k", f"is {self._top_k} but the pool has {len(self.pool_)} images",
                             "top_k <= the number of pool images")
        self._rng = as_generator(resolve_rng(self.rng, self.random_state))

    def _start(self):
        self._check_params()
        self.pool_z_ = _embed(self.embedder, self.pool_)
        self._u = _unit(self.pool_z_)
        self.seen_ = np.zeros(len(self.pool_), dtype=bool)
        self._best_z = None

    def _propose(self, k):
        avail = np.nonzero(~self.seen_)[0]
        if len(avail) == 0:
            return self.pool_[:0], {"pool_idx": avail, "z": self.pool_z_[:0]}
        if self._best_z is None:
            idx = self._rng.choice(avail, size=min(self._n_init, k, len(avail)), replace=False)
        else:
            sims = self._u[avail] @ _unit(self._best_z[None])[0]
            top = avail[np.argsort(-sims, kind="stable")[:min(self._top_k, len(avail))]]
            idx = np.asarray([int(self._rng.choice(top))])
        return self.pool_[idx], {"pool_idx": idx, "z": self.pool_z_[idx]}

    def _observe(self, images, rewards, meta):
        n = len(rewards)
        if meta is not None:
            self.seen_[meta["pool_idx"][:n]] = True
            z = meta["z"][:n]
        else:
            z = _embed(self.embedder, images)
        j = int(np.argmax(rewards))
        if self._best_z is None or rewards[j] >= self.best_reward_:
            self._best_z = z[j].copy()


class _UCBBase(BlackBoxStimulusOptimizer):
    def __init__(self, embedder, pool, *, generator=None, kappa=2.5, n_init=10, space="pool", n_candidates=512,
                 batch=1, fit_every=1, fit_iters=None, device="cpu", rng=None,
                 random_state=None):
        self.embedder = embedder
        self.pool = pool
        self.generator = generator
        self.kappa = kappa
        self.n_init = n_init
        self.space = space
        self.n_candidates = n_candidates
        self.batch = batch
        self.fit_every = fit_every
        self.fit_iters = fit_iters
        self.device = device
        self.rng = rng
        self.random_state = random_state
        self._check_params()

    def _check_params(self):
        _check_callable(self.embedder, "embedder", "a callable images -> (n, d) embeddings")
        self.pool_ = _check_pool(self.pool)
        self._space = check_option(self.space, "space", ["pool", "embedding", "directions"])
        if self._space in ("embedding", "directions"):
            _check_callable(self.generator, "generator", "a callable (embeddings, rng) -> images for space='embedding'")
        self._kappa = check_in_range(self.kappa, "kappa", 0)
        if not math.isfinite(self._kappa):
            raise InputError("kappa", "is infinite", "a finite exploration weight")
        self._n_init = check_positive_int(self.n_init, "n_init")
        self._n_cand = check_positive_int(self.n_candidates, "n_candidates")
        self._batch = check_positive_int(self.batch, "batch")
        self._fit_every = check_positive_int(self.fit_every, "fit_every")
        self._fit_iters = None if self.fit_iters is None else check_positive_int(self.fit_iters, "fit_iters")
        check_device_name(self.device, "device", allow_none=False)
        self._rng = as_generator(resolve_rng(self.rng, self.random_state))

    def _start(self):
        self._check_params()
        check_device(self.device)
        self.pool_z_ = _embed(self.embedder, self.pool_)
        self._mu0 = self.pool_z_.mean(0)
        self._L0 = np.linalg.cholesky(np.cov(self.pool_z_.T) + 1e-6 * np.eye(self.pool_z_.shape[1]))
        self._radius = float(np.median(np.linalg.norm(self.pool_z_, axis=1)))
        self.seen_ = np.zeros(len(self.pool_), dtype=bool)
        self.X_ = np.zeros((0, self.pool_z_.shape[1]))
        self.y_ = np.zeros(0)
        self._since_fit = 0
        self._model = None

    def _candidates(self):
        if self._space == "pool":
            idx = np.nonzero(~self.seen_)[0]
            return self.pool_z_[idx], idx
        U = self._rng.standard_normal((self._n_cand, len(self._mu0)))
        if self._space == "directions":       # isotropic Gaussian directions on the sphere of the pool's norm
            Z = self._radius * U / np.maximum(np.linalg.norm(U, axis=1, keepdims=True), 1e-12)
        else:
            Z = self._mu0 + U @ self._L0.T
        return Z, np.full(len(Z), -1)

    def _render(self, Z, idx):
        if self._space == "pool":
            return self.pool_[idx]
        return _check_generated(self.generator(Z, self._rng), self.image_shape_, len(Z))

    def _propose(self, k):
        if len(self.y_) < self._n_init:
            m = min(self._n_init - len(self.y_), k)
            Z, idx = self._candidates()
            if len(Z) == 0:
                return self.pool_[:0], None
            pick = self._rng.choice(len(Z), size=min(m, len(Z)), replace=False)
        else:
            Z, idx = self._candidates()
            if len(Z) == 0:
                return self.pool_[:0], None
            scores = self._acquisition(Z)
            pick = np.argsort(-scores, kind="stable")[:min(self._batch, k, len(Z))]
        imgs = self._render(Z[pick], idx[pick])
        # the GP conditions on the proposed point (pool embedding, or the direction as the official benchmark does)
        z = _embed(self.embedder, imgs) if self._space == "embedding" else Z[pick]
        return imgs, {"z": z, "pool_idx": idx[pick]}

    def _observe(self, images, rewards, meta):
        n = len(rewards)
        if meta is None:
            z = _embed(self.embedder, images)
        else:
            z = meta["z"][:n]
            p = meta["pool_idx"][:n]
            self.seen_[p[p >= 0]] = True
        self.X_ = np.vstack([self.X_, z])
        self.y_ = np.concatenate([self.y_, rewards])
        self._since_fit += n
        if len(self.y_) >= self._n_init and (self._model is None or self._since_fit >= self._fit_every):
            self._fit()
            self._since_fit = 0
        elif self._model is not None:
            self._condition()


class GPUCB(_UCBBase):
    r"""GP-UCB Bayesian optimisation over image embeddings (ours, on gpytorch).

    After ``n_init`` random points, the next image maximises :math:`\mu(z) + \kappa\,\sigma(z)` of an
    exact GP (constant mean, ScaleKernel(RBF with one length-scale), Gaussian noise) fitted to the
    standardised rewards by 60 Adam steps on the exact marginal log-likelihood every ``fit_every``
    observations (warm-started).

    Parameters
    ----------
    embedder : callable
        ``embedder(images) -> (n, d)``.
    pool : array (N, *image_shape)
        Candidate images.
    generator : callable, optional
        ``generator(embeddings, rng) -> images``; needed for ``space="embedding"`` or ``"directions"``.
    kappa : float >= 0, default 2.5
        Exploration weight.
    n_init : int, default 10
        Random initial points.
    space : {"pool", "embedding", "directions"}, default "pool"
        Maximise over the unseen pool embeddings; over ``n_candidates`` Gaussian draws (the pool's
        embedding mean and covariance) rendered by the generator; or (``"directions"``, the official
        MindPilot benchmark's ``BayesianOptimizationWrapper``) over ``n_candidates`` isotropic Gaussian
        directions :math:`r\,u/\lVert u\rVert`, :math:`u \sim N(0, I)`, fresh at every step and for the
        ``n_init`` initial points, rendered by the generator. The official code samples unit vectors in
        CLIP space; here :math:`r` is the median norm of the pool's embeddings so that the directions lie
        where the embedder puts images.
    n_candidates : int, default 512
        Candidates per step for ``space="embedding"`` or ``"directions"`` (the official benchmark: 100).
    batch : int, default 1
        Images per proposal (the top-``batch`` acquisition values).
    fit_every : int, default 1
        Observations between hyper-parameter refits (the GP is conditioned on every observation).
    fit_iters : int, optional
        Optimiser iterations per refit (default: 60 Adam steps here; BoTorch's own L-BFGS limit there).
    device : str, default "cpu"
        Torch device.
    rng : int or Generator, optional
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import GPUCB, PCAEmbedder, run_loop
    >>> pool = np.random.default_rng(0).random((60, 3, 3))
    >>> opt = GPUCB(PCAEmbedder(3).fit(pool), pool, n_init=5, rng=0)
    >>> run_loop(opt, lambda x: x.mean(axis=(1, 2)), query_budget=8).queries   # doctest: +SKIP
    8
    """

    def _fit(self):
        import gpytorch
        import torch

        X = torch.as_tensor(self.X_, dtype=torch.float64, device=self.device)
        ym, ys = self.y_.mean(), self.y_.std() + 1e-9
        y = torch.as_tensor((self.y_ - ym) / ys, dtype=torch.float64, device=self.device)
        self._ystats = (ym, ys)

        class _Exact(gpytorch.models.ExactGP):
            def __init__(self, x, t, lik):
                super().__init__(x, t, lik)
                self.mean_module = gpytorch.means.ConstantMean()
                self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

            def forward(self, x):
                return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))

        lik = gpytorch.likelihoods.GaussianLikelihood(noise_constraint=gpytorch.constraints.GreaterThan(1e-4))
        model = _Exact(X, y, lik).double().to(self.device)
        if self._model is None:
            model.covar_module.base_kernel.lengthscale = math.sqrt(X.shape[1])
        else:
            model.load_state_dict(self._model[0].state_dict(), strict=False)
        model.train()
        lik.train()
        opt = torch.optim.Adam(model.parameters(), lr=0.1)
        mll = gpytorch.mlls.ExactMarginalLogLikelihood(lik, model)
        for _ in range(60 if self._fit_iters is None else self._fit_iters):
            opt.zero_grad()
            loss = -mll(model(X), y)
            loss.backward()
            opt.step()
        model.eval()
        lik.eval()
        self._model = (model, lik)

    def _condition(self):
        import torch

        model, _ = self._model
        ym, ys = self.y_.mean(), self.y_.std() + 1e-9
        self._ystats = (ym, ys)
        X = torch.as_tensor(self.X_, dtype=torch.float64, device=self.device)
        y = torch.as_tensor((self.y_ - ym) / ys, dtype=torch.float64, device=self.device)
        model.set_train_data(X, y, strict=False)

    def _acquisition(self, Z):
        import gpytorch
        import torch

        model, _ = self._model
        with torch.no_grad(), gpytorch.settings.fast_pred_var(False):
            post = model(torch.as_tensor(Z, dtype=torch.float64, device=self.device))
            mu, sd = post.mean.cpu().numpy(), post.variance.clamp_min(0).sqrt().cpu().numpy()
        return mu + self._kappa * sd


class BoTorchUCB(_UCBBase):
    r"""GP-UCB with BoTorch (the peer library): ``SingleTaskGP`` + ``fit_gpytorch_mll`` +
    ``UpperConfidenceBound(beta=kappa**2)`` evaluated on every candidate and the best taken (as
    ``optimize_acqf_discrete`` would).

    Parameters are those of :class:`GPUCB` (BoTorch standardises the outcomes with its ``Standardize``
    transform and fits its default priors by L-BFGS).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import BoTorchUCB, PCAEmbedder, run_loop
    >>> pool = np.random.default_rng(0).random((60, 3, 3))
    >>> opt = BoTorchUCB(PCAEmbedder(3).fit(pool), pool, n_init=5, rng=0)
    >>> run_loop(opt, lambda x: x.mean(axis=(1, 2)), query_budget=7).queries   # doctest: +SKIP
    7
    """

    def _fit(self):
        import torch
        from botorch.fit import fit_gpytorch_mll
        from botorch.models import SingleTaskGP
        from botorch.models.transforms.outcome import Standardize
        from gpytorch.mlls import ExactMarginalLogLikelihood

        X = torch.as_tensor(self.X_, dtype=torch.float64, device=self.device)
        Y = torch.as_tensor(self.y_[:, None], dtype=torch.float64, device=self.device)
        model = SingleTaskGP(X, Y, outcome_transform=Standardize(m=1))
        if self._model is not None:      # warm start from the previous hyper-parameters
            sd = {k: v for k, v in self._model.state_dict().items() if not k.startswith("outcome_transform")}
            model.load_state_dict(sd, strict=False)
        mll = ExactMarginalLogLikelihood(model.likelihood, model)
        kw = {} if self._fit_iters is None else {"optimizer_kwargs": {"options": {"maxiter": self._fit_iters}}}
        try:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(int(self._rng.integers(2 ** 31)))
                fit_gpytorch_mll(mll, **kw)
        except Exception:   # noqa: BLE001 - botorch raises ModelFittingError after its retries; keep priors
            pass
        model.eval()
        self._model = model

    def _condition(self):
        self._fit_lite()

    def _fit_lite(self):
        import torch
        from botorch.models import SingleTaskGP
        from botorch.models.transforms.outcome import Standardize

        old = self._model
        X = torch.as_tensor(self.X_, dtype=torch.float64, device=self.device)
        Y = torch.as_tensor(self.y_[:, None], dtype=torch.float64, device=self.device)
        model = SingleTaskGP(X, Y, outcome_transform=Standardize(m=1))
        sd = {k: v for k, v in old.state_dict().items() if not k.startswith("outcome_transform")}
        model.load_state_dict(sd, strict=False)
        model.eval()
        self._model = model

    def _acquisition(self, Z):
        import torch
        from botorch.acquisition import UpperConfidenceBound

        acq = UpperConfidenceBound(self._model, beta=self._kappa ** 2)
        with torch.no_grad():
            vals = acq(torch.as_tensor(Z, dtype=torch.float64, device=self.device)[:, None, :])
        return vals.cpu().numpy()


class CMAES(BlackBoxStimulusOptimizer):
    r"""CMA-ES in embedding space (the ``cma`` package), each candidate rendered by the generator.

    The search starts at the pool's mean embedding with step size :math:`\sigma_0` (in the embedding's
    units: a whitened :class:`PCAEmbedder` has unit variance per coordinate); a generation is told to CMA-ES
    once all its ``popsize`` members have rewards (fitness = -reward).

    Parameters
    ----------
    embedder : callable
        ``embedder(images) -> (n, d)``; gives the start point and the dimension.
    generator : callable
        ``generator(embeddings, rng) -> images``.
    pool : array (N, *image_shape)
        Images defining the start point (their mean embedding) and the image shape.
    popsize : int >= 2, default 8
    sigma0 : float > 0, default 0.5
    rng : int or Generator, optional
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import CMAES, PCAEmbedder, PCAGenerator, run_loop
    >>> pool = np.random.default_rng(0).random((60, 3, 3)); emb = PCAEmbedder(3).fit(pool)
    >>> opt = CMAES(emb, PCAGenerator(emb), pool, rng=0)
    >>> run_loop(opt, lambda x: x.mean(axis=(1, 2)), query_budget=16).queries    # doctest: +SKIP
    16
    """

    def __init__(self, embedder, generator, pool, *, popsize=8, sigma0=0.5, rng=None, random_state=None):
        self.embedder = embedder
        self.generator = generator
        self.pool = pool
        self.popsize = popsize
        self.sigma0 = sigma0
        self.rng = rng
        self.random_state = random_state
        self._check_params()

    def _check_params(self):
        _check_callable(self.embedder, "embedder", "a callable images -> (n, d) embeddings")
        _check_callable(self.generator, "generator", "a callable (embeddings, rng) -> images")
        self.pool_ = _check_pool(self.pool)
        pop = self._pop = check_positive_int(self.popsize, "popsize", minimum=2)
        s0 = self._s0 = check_in_range(self.sigma0, "sigma0", 0, low_open=True)
        if not math.isfinite(s0):
            raise InputError("sigma0", "is infinite", "a finite initial step size")
        self._rng = as_generator(resolve_rng(self.rng, self.random_state))

    def _start(self):
        import cma

        self._check_params()
        z0 = _embed(self.embedder, self.pool_).mean(0)
        seed = int(self._rng.integers(1, 2 ** 31 - 1))
        self.es_ = cma.CMAEvolutionStrategy(z0, self._s0, {"popsize": self._pop, "seed": seed, "verbose": -9,
                                                     "verb_disp": 0, "verb_log": 0})
        self._gen = []      # current generation's candidates
        self._fit = []      # their fitness values, in order
        self._next = 0      # next candidate to propose

    def _propose(self, k):
        if not self._gen:
            self._gen = [np.asarray(x, float) for x in self.es_.ask()]
            self._fit, self._next = [], 0
        lo = self._next
        hi = min(len(self._gen), lo + k)
        Z = np.stack(self._gen[lo:hi])
        imgs = _check_generated(self.generator(Z, self._rng), self.image_shape_, len(Z))
        return imgs, {"slot": np.arange(lo, hi)}

    def _observe(self, images, rewards, meta):
        if meta is None:       # rewards for images CMA-ES did not propose: nothing to tell it
            return
        slots = meta["slot"][:len(rewards)]
        self._fit.extend((-np.asarray(rewards, float)).tolist())
        self._next = int(slots[-1]) + 1
        if len(self._fit) >= len(self._gen):
            self.es_.tell(self._gen, self._fit[:len(self._gen)])
            self._gen, self._fit = [], []
