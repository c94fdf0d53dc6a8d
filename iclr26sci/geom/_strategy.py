"""3DGS initial scales (k-NN rule) and the gradient-threshold densification strategy (clone / split / prune)."""
from __future__ import annotations

import math

import numpy as np
import torch
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, as_generator, resolve_rng

__all__ = ["init_log_scales", "DefaultStrategy"]


def init_log_scales(points, k: int = 3, *, min_dist2: float = 1e-7) -> torch.Tensor:
    r"""The 3DGS initial scale: log of the root-mean-square distance to the ``k`` nearest neighbours.

    .. math:: \hat s_i = \log\sqrt{\max\!\big(\tfrac1k\textstyle\sum_{j\in\mathrm{kNN}(i)}|x_i-x_j|^2,\ 10^{-7}\big)}

    (``simple_knn.distCUDA2`` with k = 3), the same on all three axes.

    Parameters
    ----------
    points : tensor (N, 3)
        Initial Gaussian centres (e.g. an SfM point cloud); N > k.
    k : int
        Neighbours averaged.
    min_dist2 : float
        Floor on the mean squared distance (duplicated points).

    Returns
    -------
    tensor (N, 3)
        Isotropic log-scales, same dtype as ``points``.

    References
    ----------
    Kerbl et al. 2023, ``GaussianModel.create_from_pcd``.

    Examples
    --------
    >>> import torch, math
    >>> pts = torch.tensor([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    >>> s = init_log_scales(pts)[1]          # neighbours of (1,0,0) at distances 1, sqrt 2, sqrt 2
    >>> torch.allclose(s, torch.full((3,), 0.5 * math.log(5 / 3)))
    True
    """
    from scipy.spatial import cKDTree

    from ._transforms import _as_tensor

    x = _as_tensor(points, "points", 3)
    if x.ndim != 2:
        raise InputError("points", f"has shape {tuple(x.shape)}", "(N, 3)")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError("k", f"got {k!r}", "a positive integer")
    if isinstance(min_dist2, bool) or not isinstance(min_dist2, (int, float)) or not (0 < min_dist2 < float("inf")):
        raise InputError("min_dist2", f"got {min_dist2!r}", "a finite floor > 0 on the mean squared distance "
                         "(0 gives log-scale -inf for duplicated points)")
    if x.shape[0] <= k:
        raise InputError("points", f"has {x.shape[0]} points", f"more than k = {k} points")
    p = x.detach().cpu().numpy().astype(np.float64)
    d, _ = cKDTree(p).query(p, k=k + 1)
    m = np.maximum((d[:, 1:] ** 2).mean(1), min_dist2)
    ls = torch.as_tensor(0.5 * np.log(m), dtype=x.dtype, device=x.device)
    return ls[:, None].repeat(1, 3)


class DefaultStrategy(BaseEstimator):
    """3DGS / gsplat ``DefaultStrategy``: grow Gaussians with large screen-space gradients, prune the rest.

    Every ``refine_every`` steps between ``refine_start_iter`` and ``refine_stop_iter``:

    - Gaussians whose mean norm of the 2-D mean gradient (in NDC units, as 3DGS: pixel gradient times
      ``(W/2, H/2)``) since the last refinement exceeds ``grow_grad2d`` grow: those with largest scale
      ``<= grow_scale3d * scene_scale`` are **cloned** (duplicated), the larger ones **split** into two
      samples from their Gaussian with scales divided by 1.6;
    - Gaussians with opacity below ``prune_opa`` (and, after the first opacity reset, with scale above
      ``prune_scale3d * scene_scale``) are **pruned**;
    - every ``reset_every`` steps, opacities are clamped to at most ``2 * prune_opa``.

    Parameters and Adam moments are edited together: new entries get zero moments (gsplat's ``ops``).

    Parameters
    ----------
    prune_opa, grow_grad2d, grow_scale3d, prune_scale3d : float
        Thresholds (gsplat defaults 0.005, 0.0002, 0.01, 0.1).
    refine_start_iter, refine_stop_iter, refine_every, reset_every : int
        Schedule in optimiser steps (gsplat defaults 500, 15000, 100, 3000).
    scene_scale : float
        Scene extent that the 3-D scale thresholds are relative to.
    rng : None, int, SeedSequence, Generator or RandomState, default None
        Seed of the split samples (one stream per step).
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Examples
    --------
    >>> import torch
    >>> params = {"means": torch.nn.Parameter(torch.zeros(2, 3)), "quats": torch.nn.Parameter(torch.tensor([[1.0, 0, 0, 0]] * 2)),
    ...           "log_scales": torch.nn.Parameter(torch.full((2, 3), -5.0)),
    ...           "opacity_logits": torch.nn.Parameter(torch.tensor([0.0, -9.0]))}
    >>> opts = {k: torch.optim.Adam([v], lr=1e-3) for k, v in params.items()}
    >>> s = DefaultStrategy(refine_start_iter=0, refine_every=1)
    >>> state = s.initialize_state()
    >>> grad2d = torch.tensor([[1.0, 1.0], [0.0, 0.0]])      # pixel-space gradient of the 2-D means
    >>> s.step_post_backward(params, opts, state, step=1, grad2d=grad2d, radii=torch.tensor([3, 3]), width=8, height=8)
    {'cloned': 1, 'split': 0, 'pruned': 1}
    >>> params["means"].shape
    torch.Size([2, 3])
    """

    def __init__(self, prune_opa=0.005, grow_grad2d=0.0002, grow_scale3d=0.01, prune_scale3d=0.1,
                 refine_start_iter=500, refine_stop_iter=15000, refine_every=100, reset_every=3000, scene_scale=1.0,
                 rng=None, random_state=None):
        self.prune_opa = prune_opa
        self.grow_grad2d = grow_grad2d
        self.grow_scale3d = grow_scale3d
        self.prune_scale3d = prune_scale3d
        self.refine_start_iter = refine_start_iter
        self.refine_stop_iter = refine_stop_iter
        self.refine_every = refine_every
        self.reset_every = reset_every
        self.scene_scale = scene_scale
        self.rng = rng
        self.random_state = random_state
        self._validate()

    def _validate(self):
        for name in ("prune_opa", "grow_grad2d", "grow_scale3d", "prune_scale3d", "scene_scale"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 or v == float("inf"):
                raise InputError(name, f"got {v!r}", "a finite number > 0")
        if not self.prune_opa < 1:
            raise InputError("prune_opa", f"got {self.prune_opa}", "an opacity in (0, 1)")
        for name in ("refine_start_iter", "refine_stop_iter", "refine_every", "reset_every"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0 or (name in ("refine_every", "reset_every") and v == 0):
                raise InputError(name, f"got {v!r}", "a non-negative integer (refine_every, reset_every > 0)")
        if not self.prune_opa < 0.5:
            raise InputError("prune_opa", f"got {self.prune_opa}",
                             "an opacity in (0, 0.5): the opacity reset caps opacities at 2 * prune_opa < 1")
        if self.refine_stop_iter <= self.refine_start_iter:
            raise InputError("refine_stop_iter", f"got {self.refine_stop_iter} <= refine_start_iter = "
                             f"{self.refine_start_iter}, so densification would never run",
                             "refine_stop_iter > refine_start_iter")
        seed = resolve_rng(self.rng, self.random_state)       # an InputError names rng or random_state
        try:
            as_generator(seed)
        except InputError as exc:
            raise InputError("rng", exc.problem, exc.expected) from None
        except (TypeError, ValueError):
            raise InputError("rng", f"got {self.rng!r}", "None, an int >= 0, a SeedSequence or a Generator") from None

    def initialize_state(self) -> dict:
        """Running statistics: accumulated gradient norms and counts (filled lazily)."""
        self._validate()
        return {"grad2d": None, "count": None}

    @staticmethod
    def _check_params(params, optimizers):
        need = ("means", "quats", "log_scales", "opacity_logits")
        if not isinstance(params, dict) or any(k not in params for k in need):
            raise InputError("params", f"got keys {list(params) if isinstance(params, dict) else type(params).__name__}",
                             f"a dict with at least {need}")
        n = params["means"].shape[0]
        for k, v in params.items():
            if not isinstance(v, torch.nn.Parameter) or v.shape[0] != n:
                raise InputError("params", f"entry {k!r} is not an (N, ...) Parameter with N = {n}",
                                 "torch.nn.Parameter tensors with one row per Gaussian")
        if not isinstance(optimizers, dict) or set(optimizers) != set(params):
            raise InputError("optimizers", "must map every parameter name to its optimiser",
                             "a dict {name: torch.optim.Optimizer} with the keys of params")
        return n

    def step_post_backward(self, params, optimizers, state, step, grad2d, radii, width, height) -> dict:
        """Accumulate the 2-D gradient statistics and, on refinement steps, clone / split / prune in place.

        Parameters
        ----------
        params : dict of torch.nn.Parameter
            ``means``, ``quats``, ``log_scales``, ``opacity_logits`` and any per-Gaussian extras (colours).
        optimizers : dict of torch.optim.Optimizer
            One optimiser per parameter (its state is edited together with the parameter).
        state : dict
            From :meth:`initialize_state`.
        step : int
            The optimiser step just taken.
        grad2d : tensor (N, 2)
            ``RasterResult.means2d.grad`` of this step (pixel units).
        radii : LongTensor (N,)
            ``RasterResult.radii`` (Gaussians with radius 0 were not visible and are not counted).
        width, height : int
            Image size (to convert pixel gradients to 3DGS's NDC units).

        Returns
        -------
        dict
            Counts ``cloned``, ``split``, ``pruned`` of this step (zeros off refinement steps).
        """
        self._validate()
        n = self._check_params(params, optimizers)
        if not isinstance(grad2d, torch.Tensor) or grad2d.shape != (n, 2):
            raise InputError("grad2d", f"got {getattr(grad2d, 'shape', type(grad2d).__name__)}", f"a ({n}, 2) tensor")
        if not bool(torch.isfinite(grad2d).all()):
            raise InputError("grad2d", "contains NaN or infinite values", "finite screen-space gradients")
        if not isinstance(radii, torch.Tensor) or radii.shape != (n,):
            raise InputError("radii", f"got {getattr(radii, 'shape', type(radii).__name__)}", f"a ({n},) tensor")
        if radii.is_complex() or not bool(torch.isfinite(radii.float()).all()) or bool((radii < 0).any()):
            raise InputError("radii", "has negative or non-finite radii", "pixel radii >= 0 (0: not visible)")
        if not isinstance(state, dict) or not {"grad2d", "count"} <= set(state):
            raise InputError("state", f"got {type(state).__name__}", "the dict from initialize_state()")
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise InputError("step", f"got {step!r}", "a non-negative integer")
        for name, v in (("width", width), ("height", height)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise InputError(name, f"got {v!r}", "an image size > 0")
        g = grad2d.detach().clone()
        g[:, 0] *= width / 2.0
        g[:, 1] *= height / 2.0
        vis = radii > 0
        if state.get("grad2d") is None or state["grad2d"].shape[0] != n:
            state["grad2d"] = torch.zeros(n, dtype=g.dtype, device=g.device)
            state["count"] = torch.zeros(n, dtype=g.dtype, device=g.device)
        state["grad2d"][vis] += g[vis].norm(dim=-1)
        state["count"][vis] += 1
        info = {"cloned": 0, "split": 0, "pruned": 0}
        if self.refine_start_iter < step < self.refine_stop_iter and step % self.refine_every == 0:
            info = self._refine(params, optimizers, state, step)
        if step > 0 and step % self.reset_every == 0 and step < self.refine_stop_iter:
            self._reset_opacity(params, optimizers)
        return info

    # -------------------------------------------------------------- parameter surgery
    @staticmethod
    def _edit(params, optimizers, fn):
        """Replace every parameter ``p`` by ``fn(name, p)`` and its Adam moments by ``fn(name, moment)`` (zeros new)."""
        for name, p in list(params.items()):
            new = torch.nn.Parameter(fn(name, p.detach(), False))
            opt = optimizers[name]
            for group in opt.param_groups:
                for i, q in enumerate(group["params"]):
                    if q is p:
                        st = opt.state.pop(q, {})
                        for key in ("exp_avg", "exp_avg_sq"):
                            if key in st:
                                st[key] = fn(name, st[key], True)
                        group["params"][i] = new
                        if st:
                            opt.state[new] = st
            params[name] = new

    def _refine(self, params, optimizers, state, step):
        avg = state["grad2d"] / state["count"].clamp_min(1)
        smax = params["log_scales"].detach().exp().max(-1).values
        grow = avg > self.grow_grad2d
        clone = grow & (smax <= self.grow_scale3d * self.scene_scale)
        split = grow & ~clone
        gen = torch.Generator(device="cpu")
        gen.manual_seed(int(as_generator(resolve_rng(self.rng, self.random_state)).integers(2 ** 62)) + step)
        n = params["means"].shape[0]
        ns = int(split.sum())
        # split: two samples from N(mu, Sigma), scales / 1.6
        from ._transforms import quat_to_rotmat

        if ns:
            Rq = quat_to_rotmat(params["quats"].detach()[split])
            s = params["log_scales"].detach()[split].exp()
            z = torch.randn(2, ns, 3, generator=gen, dtype=s.dtype).to(s.device)
            samples = params["means"].detach()[split][None] + (Rq[None] @ (s[None] * z)[..., None])[..., 0]
        keep = ~split

        def fn(name, x, is_moment):
            parts = [x[keep], x[clone]]
            if ns:
                if is_moment:
                    parts.append(torch.zeros((2 * ns, *x.shape[1:]), dtype=x.dtype, device=x.device))
                elif name == "means":
                    parts.append(samples.reshape(2 * ns, 3))
                elif name == "log_scales":
                    parts.append((x[split] - math.log(1.6)).repeat(2, 1))
                else:
                    parts.append(x[split].repeat(2, *([1] * (x.ndim - 1))))
            if is_moment:
                parts[1] = torch.zeros_like(parts[1])
            return torch.cat(parts, 0)

        self._edit(params, optimizers, fn)
        n_new = params["means"].shape[0]
        # prune
        opa = torch.sigmoid(params["opacity_logits"].detach())
        prune = opa < self.prune_opa
        if step > self.reset_every:
            prune |= params["log_scales"].detach().exp().max(-1).values > self.prune_scale3d * self.scene_scale
        npr = int(prune.sum())
        if npr:
            self._edit(params, optimizers, lambda name, x, m: x[~prune])
        state["grad2d"] = torch.zeros(params["means"].shape[0], dtype=avg.dtype, device=avg.device)
        state["count"] = torch.zeros_like(state["grad2d"])
        del n, n_new
        return {"cloned": int(clone.sum()), "split": ns, "pruned": npr}

    def _reset_opacity(self, params, optimizers):
        cap = math.log(2 * self.prune_opa / (1 - 2 * self.prune_opa))

        def fn(name, x, is_moment):
            if name != "opacity_logits":
                return x
            return torch.zeros_like(x) if is_moment else torch.clamp(x, max=cap)

        self._edit(params, optimizers, fn)
