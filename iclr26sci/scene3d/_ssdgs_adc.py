r"""Adaptive density control (ADC) for SSD-GS: :class:`iclr26sci.geom.DefaultStrategy` applied to every
per-Gaussian attribute of the SSD-GS model, with the 3DGS schedule scaled to the run length.

The official SSD-GS code densifies exactly as 3DGS does (``scene/gaussian_model.py``: ``densify_and_clone``,
``densify_and_split`` with N = 2 and scales divided by 0.8 N = 1.6, ``prune_points``, ``reset_opacity``) and carries
its shading attributes through every edit: ``kd``, ``ks``, ``ksss``, the ASG mixing weights, the shading frame
``local_q`` and the latent ``neural_material``; the ASG lobes themselves are shared by all Gaussians and are not
edited. Its defaults (``arguments/__init__.py``) are 3DGS's for a 30k-iteration run: densify every 100 iterations
from 500 to 15k, reset the opacities every 3000, grow where the mean screen-space (NDC) gradient of the mean exceeds
2e-4, clone below 1 % of the scene extent and split above it, prune opacities below 0.005.

Scaling to a miniature of ``n_steps`` iterations (one image per step, as the paper): the start, stop and reset
iterations keep their fractions of the 30k run (``round(500 s)``, ``round(15000 s)``, ``round(3000 s)`` with
``s = n_steps / 30000``), so densification runs over the first half of the run, as in 3DGS. Two quantities do not
shrink with the run and set floors:

- the interval would become ``100 s`` (2 steps at 600): each refinement would then decide on the gradient of one or
  two images, so it is floored at 10 steps (the mean gradient of at least ten images; 3DGS averages 100);
- after an opacity reset (opacities capped at 0.01, logit -4.6) the opacity logits climb back by at most about one
  learning rate per Adam step, i.e. over at least ``4.6 / (0.05 lr_scale)`` steps whatever the run length; 3DGS
  leaves 3000 steps, about 33 such recovery times, between resets. The reset interval keeps that ratio:
  ``max(round(3000 s), round(3000 / lr_scale))``. At 600 steps and ``lr_scale`` 4 it is 750, after the end of
  densification (300), so such a run has no reset (and, as in 3DGS before its first reset, no pruning by size).

The
gradient threshold is in NDC units, which do not depend on the image size, and is kept. The growth is budgeted, as
the official code's ``maximum_gs`` cap: once a refinement would pass ``max_gaussians``, only the Gaussians with the
largest mean gradients grow.
"""
from __future__ import annotations

import numpy as np
import torch

from iclr26sci.core import InputError

# the official code's (= 3DGS's) defaults, in iterations of a 30k-iteration run
REF_ITERATIONS = 30_000
REF_SCHEDULE = {"densify_from": 500, "densify_until": 15_000, "densify_every": 100, "opacity_reset_every": 3_000}
MIN_EVERY = 10
# per-lobe (shared) parameters: not edited by densification
SHARED = frozenset({"asg_lm", "asg_sigma", "asg_quat"})


def scaled_schedule(n_steps, densify_from=None, densify_until=None, densify_every=None, opacity_reset_every=None,
                    lr_scale=1.0):
    """The 3DGS schedule scaled to ``n_steps`` at learning rates ``lr_scale`` x the official ones (see the module
    docstring); explicit values are kept as given.

    Returns a dict with the four keys of ``REF_SCHEDULE`` (iterations, 1-based as 3DGS's).

    Examples
    --------
    >>> scaled_schedule(600)
    {'densify_from': 10, 'densify_until': 300, 'densify_every': 10, 'opacity_reset_every': 3000}
    >>> scaled_schedule(600, lr_scale=4.0)["opacity_reset_every"]      # after step 300: no reset in this run
    750
    >>> scaled_schedule(30000) == REF_SCHEDULE
    True
    """
    s = n_steps / REF_ITERATIONS
    given = {"densify_from": densify_from, "densify_until": densify_until, "densify_every": densify_every,
             "opacity_reset_every": opacity_reset_every}
    out = {}
    for k, ref in REF_SCHEDULE.items():
        if given[k] is not None:
            out[k] = int(given[k])
        elif k == "densify_every":
            out[k] = max(MIN_EVERY, int(round(ref * s)))
        elif k == "opacity_reset_every":
            out[k] = max(1, int(round(ref * s)), int(round(ref / lr_scale)))
        else:
            out[k] = int(round(ref * s))
    return out


def camera_extent(cameras, points=None) -> float:
    """3DGS's ``cameras_extent``: 1.1 x the largest distance of a camera centre from the centres' mean.

    With a single viewpoint (extent 0) the half diagonal of the point cloud's bounding box is used instead.
    """
    c = np.unique(np.stack([cam.centre.detach().cpu().numpy().astype(np.float64) for cam in cameras]), axis=0)
    ext = 1.1 * float(np.linalg.norm(c - c.mean(0), axis=1).max()) if len(c) > 1 else 0.0
    if ext <= 1e-9 and points is not None and len(points) > 1:
        ext = float(np.linalg.norm(points.max(0) - points.min(0))) / 2
    return ext if ext > 1e-9 else 1.0


class Densifier:
    """Runs geom's 3DGS strategy on an :class:`SSDGS` model during ``fit``.

    The strategy edits parameters and Adam moments together (new rows: zero moments). SSD-GS trains with one Adam
    holding named parameter groups, some of which mix per-Gaussian tensors with shared ones (``colors`` =
    k_d, k_s, k_sss; ``latent_shadow`` = latents + the shadow MLP), so the same optimiser is handed to the strategy
    under every per-Gaussian name: the strategy finds each tensor in its group by identity and swaps it there.
    ``opacity`` is handed over as ``opacity_logits`` (the strategy's name for the same logit).
    """

    def __init__(self, model, optimizer, *, schedule, grow_grad2d, percent_dense, prune_opacity, scene_scale,
                 max_gaussians, seed):
        from iclr26sci.geom import DefaultStrategy

        self.model = model
        self.optimizer = optimizer
        self.max_gaussians = max_gaussians
        self.base_grad = float(grow_grad2d)
        self.strategy = DefaultStrategy(prune_opa=float(prune_opacity), grow_grad2d=self.base_grad,
                                        grow_scale3d=float(percent_dense), prune_scale3d=0.1,
                                        refine_start_iter=schedule["densify_from"],
                                        refine_stop_iter=schedule["densify_until"],
                                        refine_every=schedule["densify_every"],
                                        reset_every=schedule["opacity_reset_every"], scene_scale=float(scene_scale),
                                        rng=int(seed))
        self.state = self.strategy.initialize_state()
        self.schedule = dict(schedule)
        self.history = []

    def _view(self):
        p = self.model.params_
        n = p["means"].shape[0]
        names = [k for k, v in p.items() if k not in SHARED and v.ndim >= 1 and v.shape[0] == n]
        return {("opacity_logits" if k == "opacity" else k): p[k] for k in names}

    def _is_refine_step(self, step):
        s = self.strategy
        return s.refine_start_iter < step < s.refine_stop_iter and step % s.refine_every == 0

    def _budgeted_threshold(self, step, grad2d, radii, width, height):
        """The growth threshold that keeps the count at most ``max_gaussians`` after this refinement: the base
        threshold, raised to the (k+1)-th largest mean gradient when only k more Gaussians fit (clone and split
        both add one Gaussian per grower)."""
        n = grad2d.shape[0]
        room = self.max_gaussians - n
        st = self.state
        g = grad2d.detach().clone()
        g[:, 0] *= width / 2.0
        g[:, 1] *= height / 2.0
        vis = (radii > 0).to(g.dtype)
        acc = g.norm(dim=-1) * vis
        cnt = vis
        if st.get("grad2d") is not None and st["grad2d"].shape[0] == n:
            acc = acc + st["grad2d"]
            cnt = cnt + st["count"]
        avg = acc / cnt.clamp_min(1)
        if room <= 0:
            return max(self.base_grad, float(avg.max()))
        if room >= n:
            return self.base_grad
        kth = float(torch.sort(avg, descending=True).values[room])
        return max(self.base_grad, kth)

    def after_step(self, step, raster, width, height) -> dict:
        """Accumulate the screen-space gradient of this step and densify / prune / reset on schedule.

        ``step`` is the number of optimiser steps taken (1-based, as 3DGS's iteration counter); ``raster`` the
        step's :class:`iclr26sci.geom.RasterResult` after ``backward``.
        """
        view = self._view()
        n = view["means"].shape[0]
        g = raster.means2d.grad
        if g is None:
            g = torch.zeros(n, 2, dtype=view["means"].dtype, device=view["means"].device)
        radii = raster.radii
        refine = self._is_refine_step(step)
        if refine and self.max_gaussians is not None:
            self.strategy.grow_grad2d = self._budgeted_threshold(step, g, radii, width, height)
        opts = {k: self.optimizer for k in view}
        info = self.strategy.step_post_backward(view, opts, self.state, step, g, radii, width, height)
        self.strategy.grow_grad2d = self.base_grad
        p = self.model.params_
        for k, v in view.items():
            p["opacity" if k == "opacity_logits" else k] = v
        if refine:
            self.history.append({"step": int(step), **info, "n": int(p["means"].shape[0])})
        return info


def check_adc_args(model):
    """Validate the ADC constructor arguments of an :class:`SSDGS` (raise InputError before any work)."""
    from .ssdgs import _int, _real

    if not isinstance(model.densify, bool):
        raise InputError("densify", f"got {model.densify!r}", "True (adaptive density control) or False")
    _real(model.densify_grad, "densify_grad", 0.0, lo_open=True,
          expected="a mean screen-space gradient threshold > 0 (NDC units; 3DGS: 2e-4)")
    _real(model.percent_dense, "percent_dense", 0.0, lo_open=True,
          expected="a fraction of the scene extent > 0 (clone below it, split above it; 3DGS: 0.01)")
    _real(model.prune_opacity, "prune_opacity", 0.0, 0.5, lo_open=True,
          expected="an opacity in (0, 0.5) (the reset caps opacities at twice it; 3DGS: 0.005)")
    if model.prune_opacity >= 0.5:
        raise InputError("prune_opacity", f"got {model.prune_opacity}", "an opacity in (0, 0.5)")
    for name in ("densify_from", "densify_until", "densify_every", "opacity_reset_every"):
        v = getattr(model, name)
        if v is not None:
            _int(v, name, 0 if name in ("densify_from", "densify_until") else 1)
    if model.densify_from is not None and model.densify_until is not None \
            and model.densify_until <= model.densify_from:
        raise InputError("densify_until", f"got {model.densify_until} <= densify_from = {model.densify_from}",
                         "densify_until > densify_from (or None for the scaled 3DGS default)")
    if model.max_gaussians is not None:
        _int(model.max_gaussians, "max_gaussians", 1)
        if model.max_gaussians < model.n_gaussians:
            raise InputError("max_gaussians", f"got {model.max_gaussians} < n_gaussians = {model.n_gaussians}",
                             "a cap >= the initial number of Gaussians (or None: 4 x n_gaussians)")


def make_densifier(model, optimizer, data, n_steps, seed):
    """The :class:`Densifier` for a fit of ``n_steps``, or None when densification is off or cannot run."""
    if not model.densify:
        return None
    sch = scaled_schedule(n_steps, model.densify_from, model.densify_until, model.densify_every,
                          model.opacity_reset_every, lr_scale=float(model.lr_scale))
    if sch["densify_until"] <= sch["densify_from"] + 1:
        return None                                  # too short a run: no refinement step fits
    cap = model.max_gaussians if model.max_gaussians is not None else 4 * int(model.n_gaussians)
    ext = camera_extent(data.cameras, data.points)
    return Densifier(model, optimizer, schedule=sch, grow_grad2d=model.densify_grad,
                     percent_dense=model.percent_dense, prune_opacity=model.prune_opacity, scene_scale=ext,
                     max_gaussians=int(cap), seed=seed)


__all__ = ["scaled_schedule", "camera_extent", "Densifier", "make_densifier", "check_adc_args"]
