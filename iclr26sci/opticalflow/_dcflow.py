r"""DCFlow: decoupled optimisation of a modality translator and a flow network, plus the consistency constraint.

The composite network is :math:`N(I_A, I_B) = F_\theta(T_\phi(I_A), I_B)`, the flow on ``I_B``'s grid
pointing into ``I_A``. One training step (pseudocode of the spec, section 5.2):

- **flow loss** (:math:`\theta` only, :math:`T_\phi` frozen): geometry-aware synthetic triplets
  :math:`(I, I', F_S, M)` from each modality (:func:`synthesize_view`),
  :math:`L_{flow} = L_F(F_\theta(T_\phi(I'_A), T_\phi(I_A)), F_{A,S}) + L_F(F_\theta(I'_B, I_B), F_{B,S})`
  with the trimmed L1 :math:`L_F` (:func:`trimmed_l1`);
- **translation loss** (:math:`\phi` only): :math:`L_T = S(T_\phi(I_A)\circ(\mathrm{id} + sg[F]), I_B)`
  with :math:`F = F_\theta(T_\phi(I_A), I_B)` and a structural distance ``S`` (offline substitute for
  the paper's VGG perceptual loss: 3-scale 1 - SSIM plus normalised-gradient L1);
- **consistency** (both, after ``consistency_start`` of the steps): random affine maps
  :math:`H_A, H_B`, target :math:`\tilde F^* = H_A(x + F(x)) - y` (:func:`compose_affine_flow`,
  stop-gradient), :math:`L_C = L_F(N(\tilde I_A, \tilde I_B), \tilde F^*)`;
- total :math:`L_{flow} + \lambda_T L_T + \lambda_C L_C` with :math:`\lambda_T = 2`, :math:`\lambda_C = 0.05`.

``objective="appearance"`` is the appearance-only baseline (NeMAR-mini): ``T`` and ``F`` trained
jointly on :math:`S(T_\phi(I_A)\circ(\mathrm{id}+F), I_B)` plus an edge-aware smoothness term.
"""
from __future__ import annotations

import copy
import time

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, check_is_fitted, resolve_rng, seed_sequence

from ._appearance import random_affine
from ._geometry import random_camera_motion, random_smooth_depth, synthesize_view
from ._loss import check_trim
from ._validate import check_image, check_unit_range

__all__ = ["DCFlow", "appearance_only", "structural_loss"]

_OBJECTIVES = ("decoupled", "appearance")
_DEPTHS = ("auto", "random", "pairs")
_SCHEDULES = ("onecycle", "constant")


def structural_loss(a, b, valid=None, *, scales=3):
    r"""Weight-free structural distance: mean over ``scales`` of :math:`(1-\mathrm{SSIM})/2` plus the L1
    distance of normalised gradients :math:`\nabla I/\sqrt{\|\nabla I\|^2 + 0.01^2}`.

    The offline stand-in ([recon]) for the paper's VGG perceptual loss: both parts compare local
    structure and tolerate small misalignment. ``valid`` (B, 1, H, W) restricts the average.

    Parameters
    ----------
    a, b : tensor (B, C, H, W)
    valid : bool/float tensor (B, 1, H, W), optional
    scales : int
        Number of dyadic scales.

    Examples
    --------
    >>> import torch
    >>> x = torch.rand(1, 3, 32, 32)
    >>> float(structural_loss(x, x)) < 1e-6
    True
    """
    import torch
    import torch.nn.functional as F

    from iclr26sci.geom import ssim

    from ._validate import check_int, check_same_device, check_tensor

    check_tensor(a, "a", ndim=4)
    check_tensor(b, "b", ndim=4)
    check_same_device(b, "b", a.device, "a")
    if a.shape != b.shape:
        raise InputError("b", f"has shape {tuple(b.shape)} but a has {tuple(a.shape)}", "equal shapes (B, C, H, W)")
    scales = check_int(scales, "scales")
    if min(a.shape[-2:]) < 2 ** (scales - 1):
        raise InputError("scales", f"is {scales} for {a.shape[-2]}x{a.shape[-1]} images",
                         f"at most {int(np.log2(min(a.shape[-2:]))) + 1} dyadic scales for this size")
    if valid is not None:
        check_tensor(valid, "valid", ndim=4, channels=1)
        if valid.shape[0] != a.shape[0] or valid.shape[-2:] != a.shape[-2:]:
            raise InputError("valid", f"has shape {tuple(valid.shape)}",
                             f"({a.shape[0]}, 1, {a.shape[2]}, {a.shape[3]})")
    w = torch.ones_like(a[:, :1]) if valid is None else valid.to(a.dtype)
    total = a.new_zeros(())
    for s in range(scales):
        if s:
            a, b, w = F.avg_pool2d(a, 2), F.avg_pool2d(b, 2), F.avg_pool2d(w, 2)
        sm = ssim(a, b, window_size=7, reduction="none").mean(1, keepdim=True)
        ga = _ngrad(a)
        gb = _ngrad(b)
        g = (ga - gb).abs().mean(1, keepdim=True)
        per = (1 - sm) / 2 + 0.5 * g
        total = total + (per * w).sum() / w.sum().clamp_min(1.0)
    return total / scales


def _reset(module):
    """Re-draw the weights of every sub-module that has ``reset_parameters`` (from torch's seeded global RNG)."""
    for m in module.modules():
        fn = getattr(m, "reset_parameters", None)
        if callable(fn):
            fn()
    return module


def _ngrad(x):
    import torch.nn.functional as F

    gx = F.pad(x[..., :, 1:] - x[..., :, :-1], (0, 1, 0, 0))
    gy = F.pad(x[..., 1:, :] - x[..., :-1, :], (0, 0, 0, 1))
    import torch

    n = torch.sqrt(gx * gx + gy * gy + 1e-4)
    return torch.cat([gx / n, gy / n], 1)


def _check_int(v, name, lo=1):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise InputError(name, f"got {v!r}", f"an integer >= {lo}")
    return int(v)


def _check_pos(v, name, allow_zero=True):
    ok = isinstance(v, (int, float, np.floating)) and not isinstance(v, bool) and np.isfinite(v) and \
        (v >= 0 if allow_zero else v > 0)
    if not ok:
        raise InputError(name, f"got {v!r}", "a finite number >= 0" if allow_zero else "a finite number > 0")
    return float(v)


def _to_chw3(x, name):
    """(H, W) / (H, W, 1|3) array in [0, 1] -> float32 (3, H, W) numpy."""
    a = check_image(x, name, channels=(None, 1, 3), min_side=8).astype(np.float32)
    if a.ndim == 3 and a.shape[-1] == 1:
        a = a[..., 0]
    if a.ndim == 2:
        a = np.repeat(a[None], 3, 0)
    elif a.ndim == 3 and a.shape[-1] == 3:
        a = a.transpose(2, 0, 1)
    else:
        raise InputError(name, f"has shape {a.shape}", "(H, W) or (H, W, 3) in [0, 1]")
    if not np.isfinite(a).all():
        raise InputError(name, "contains NaN or infinite values", "finite pixel values in [0, 1]")
    if min(a.shape[1:]) < 8:
        raise InputError(name, f"is {a.shape[1]}x{a.shape[2]}", "at least 8x8 pixels")
    return np.ascontiguousarray(a)


class DCFlow(BaseEstimator):
    r"""Unsupervised cross-modal optical flow by decoupled geometric and appearance synthesis (DCFlow).

    Parameters
    ----------
    net : {"pwc_tiny", "raft_small"}, FlowNet or torch.nn.Module
        The flow network :math:`F_\theta` (copied at fit; the argument is not modified).
    translator : torch.nn.Module, optional
        The modality translator :math:`T_\phi` (3 -> 3 channels); default :class:`TinyUNet`.
    objective : {"decoupled", "appearance"}
        DCFlow's decoupled objective, or the appearance-only baseline (joint photometric training).
    trim : float in [0, 0.5)
        Fraction :math:`\tau` of the largest residuals dropped by the flow loss ([recon] default 0.1).
    consistency : bool
        Use the cross-modal affine consistency constraint.
    lambda_T, lambda_C : float
        Weights of the translation and consistency losses ([note] 2.0 and 0.05).
    consistency_start : float in [0, 1)
        Fraction of the steps before the consistency term is switched on (paper: 10k of 30k steps).
    translator_warmup : float in [0, 1)
        Fraction of the first steps in which the translation loss warps ``T_phi(I_A)`` by the identity
        (zero flow) instead of ``sg[F_theta(T_phi(I_A), I_B)]``. Not in the paper (default 0): a curriculum
        for short CPU runs, where the untrained flow net's cross-modal output would otherwise misalign the
        translator's target (the pairs are assumed roughly registered, as in RGB-T rigs).
    depth : {"auto", "random", "pairs"}
        Depth used for synthesis: the pairs' depth maps (``"pairs"``), a crude random smooth field
        (``"random"``, the offline stand-in for UniDepth), or the pairs' when present (``"auto"``).
    smooth_weight : float
        Edge-aware smoothness weight of the appearance-only objective.
    batch_size : int
    lr : float
        Adam learning rate for both networks (the peak rate under ``lr_schedule="onecycle"``).
    lr_schedule : {"onecycle", "constant"}
        Learning-rate schedule: one-cycle (5% linear warm-up from ``lr / 25``, then cosine
        annealing to about zero; RAFT's training schedule) or constant.
    max_angle_deg, max_translation : float
        Camera-motion ranges of the synthesis ([recon] 5 degrees, 0.1 median depth).
    photometric_eps : float
        Photometric threshold of the synthesis mask ([recon] 0.05).
    rng : None, int, SeedSequence or Generator
        Seed of the data sampling and of the network initialisation (SPEC 7; an int seeds torch directly).
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.
    device : str
        Torch device (default CPU; the code is device-agnostic); it must exist on this machine.
    reinit : bool
        Re-initialise a user-supplied ``net`` or ``translator`` (the copies; ``reset_parameters`` of every
        sub-module) from ``rng`` before training, so that ``fit`` gives the same result whatever the global torch
        state when the module was built (default). ``False`` keeps the supplied weights (fine-tuning a trained
        network); parameters outside a ``reset_parameters`` method are always kept. Networks given by name are
        built from ``rng`` in either case.

    Attributes
    ----------
    net_, translator_ : torch.nn.Module
        The trained networks.
    history_ : dict of lists
        Per-step losses (``"flow", "T", "C", "appearance"``).
    n_steps_ : int
    fit_seconds_ : float

    References
    ----------
    Zhang, Wang, Cao, Yu, Yu, Zhang, Shen, "Rethinking Unsupervised Cross-modal Flow Estimation: Learning
    from Decoupled Optimization and Consistency Constraint", ICLR 2026, arXiv:2509.24423.

    Examples
    --------
    >>> from iclr26sci.opticalflow import crossmodal_pairs
    >>> pairs = crossmodal_pairs(n=8, size=32, rng=0)
    >>> model = DCFlow(net="pwc_tiny", batch_size=2, rng=0).fit(pairs, steps=2)
    >>> model.predict(pairs.image_a[0], pairs.image_b[0]).shape
    (32, 32, 2)
    """

    def __init__(self, net="pwc_tiny", translator=None, *, objective="decoupled", trim=0.1, consistency=True,
                 lambda_T=2.0, lambda_C=0.05, consistency_start=1 / 3, translator_warmup=0.0, depth="auto", smooth_weight=0.1,
                 batch_size=4, lr=3e-4, lr_schedule="onecycle", max_angle_deg=5.0, max_translation=0.1,
                 photometric_eps=0.05, rng=0, device="cpu", reinit=True,
                 random_state=None):
        self.net = net
        self.translator = translator
        self.objective = objective
        self.trim = trim
        self.consistency = consistency
        self.lambda_T = lambda_T
        self.lambda_C = lambda_C
        self.consistency_start = consistency_start
        self.translator_warmup = translator_warmup
        self.depth = depth
        self.smooth_weight = smooth_weight
        self.batch_size = batch_size
        self.lr = lr
        self.lr_schedule = lr_schedule
        self.max_angle_deg = max_angle_deg
        self.max_translation = max_translation
        self.photometric_eps = photometric_eps
        self.rng = rng
        self.random_state = random_state
        self.device = device
        self.reinit = reinit
        self._check_params()

    # ------------------------------------------------------------------ validation
    def _check_params(self):
        """Every hyper-parameter, without building anything; returns the torch device."""
        import torch

        from ._nets import FLOW_ARCHS

        if isinstance(self.net, str):
            if self.net not in FLOW_ARCHS:
                raise InputError("net", f"got {self.net!r}", f"one of {FLOW_ARCHS} or a torch.nn.Module")
        elif not isinstance(self.net, torch.nn.Module):
            raise InputError("net", f"got {type(self.net).__name__}", f"one of {FLOW_ARCHS} or a torch.nn.Module")
        if not isinstance(self.objective, str) or self.objective not in _OBJECTIVES:
            raise InputError("objective", f"got {self.objective!r}", f"one of {_OBJECTIVES}")
        check_trim(self.trim)
        if not isinstance(self.consistency, bool):
            raise InputError("consistency", f"got {self.consistency!r}", "True or False")
        _check_pos(self.lambda_T, "lambda_T")
        _check_pos(self.lambda_C, "lambda_C")
        cs = self.consistency_start
        if isinstance(cs, bool) or not isinstance(cs, (int, float)) or not 0 <= cs < 1:
            raise InputError("consistency_start", f"got {cs!r}", "a fraction in [0, 1) of the training steps")
        tw = self.translator_warmup
        if isinstance(tw, bool) or not isinstance(tw, (int, float)) or not 0 <= tw < 1:
            raise InputError("translator_warmup", f"got {tw!r}", "a fraction in [0, 1) of the training steps")
        if not isinstance(self.depth, str) or self.depth not in _DEPTHS:
            raise InputError("depth", f"got {self.depth!r}", f"one of {_DEPTHS}")
        _check_pos(self.smooth_weight, "smooth_weight")
        _check_int(self.batch_size, "batch_size")
        _check_pos(self.lr, "lr", allow_zero=False)
        if not isinstance(self.lr_schedule, str) or self.lr_schedule not in _SCHEDULES:
            raise InputError("lr_schedule", f"got {self.lr_schedule!r}", f"one of {_SCHEDULES}")
        _check_pos(self.max_angle_deg, "max_angle_deg")
        _check_pos(self.max_translation, "max_translation")
        _check_pos(self.photometric_eps, "photometric_eps", allow_zero=False)
        if not isinstance(self.reinit, (bool, np.bool_)):
            raise InputError("reinit", f"got {self.reinit!r}", "True or False")
        resolve_rng(self.rng, self.random_state, default=0)   # SPEC 7 seed (or RandomState), one of rng / random_state
        try:
            dev = torch.device(self.device)
            torch.empty(0, device=dev)                 # the device exists on this machine
        except (RuntimeError, TypeError, ValueError, AssertionError) as exc:
            raise InputError("device", f"got {self.device!r} ({str(exc).splitlines()[0][:80]})",
                             "an available torch device such as 'cpu' or 'cuda'") from None
        if self.translator is not None and not isinstance(self.translator, torch.nn.Module):
            raise InputError("translator", f"got {type(self.translator).__name__}", "a torch.nn.Module or None")
        return dev

    def _seed(self):
        """(numpy Generator, torch seed) from ``rng``: an int seeds both directly (as before SPEC 7)."""
        r = resolve_rng(self.rng, self.random_state, default=0)
        if isinstance(r, (int, np.integer)) and not isinstance(r, bool):
            return np.random.default_rng(int(r)), int(r)
        ss = seed_sequence(r)
        return np.random.default_rng(ss), int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))

    def _validate(self, seed, H, W):
        import torch

        from ._nets import FlowNet, TinyUNet

        dev = self._check_params()
        torch.manual_seed(seed)
        net = FlowNet(copy.deepcopy(self.net) if isinstance(self.net, torch.nn.Module) else self.net)
        if isinstance(self.net, torch.nn.Module) and self.reinit:
            _reset(net)          # a user's module was initialised outside rng's control: draw its weights from rng
        if self.translator is not None:
            tr = copy.deepcopy(self.translator)
            if self.reinit:
                _reset(tr)
        else:
            tr = TinyUNet()
        net, tr = net.to(dev), tr.to(dev)
        # probe both networks on one blank pair of the training size before any training work
        x = torch.full((1, 3, H, W), 0.5, device=dev)
        with torch.no_grad():
            try:
                y = tr(x)
            except (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError) as exc:
                raise InputError("translator", f"fails on a (1, 3, {H}, {W}) image ({str(exc).splitlines()[0][:120]})",
                                 "a module mapping (B, 3, H, W) images to (B, 3, H, W) in [0, 1]") from None
            if not isinstance(y, torch.Tensor) or tuple(y.shape) != (1, 3, H, W):
                raise InputError("translator", f"returned {tuple(getattr(y, 'shape', ())) or type(y).__name__}",
                                 f"a (1, 3, {H}, {W}) image for a (1, 3, {H}, {W}) input")
            try:
                net(x, x)
            except InputError:
                raise
            except (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError) as exc:
                raise InputError("net", f"fails on a (1, 3, {H}, {W}) pair ({str(exc).splitlines()[0][:120]})",
                                 "a module mapping (img1, img2) to a flow (B, 2, H, W)") from None
        return net, tr, dev

    # ------------------------------------------------------------------ helpers
    def _synth_batch(self, imgs_hwc, depths, g):
        """Synthetic triplets for a batch: (I', F_S, M) as arrays (B, H, W, C), (B, H, W, 2), (B, H, W)."""
        news, flows, masks = [], [], []
        for k, img in enumerate(imgs_hwc):
            H, W = img.shape[:2]
            D = depths[k] if depths is not None else random_smooth_depth(H, W, g)
            K, R, t = random_camera_motion(g, width=W, height=H, median_depth=float(np.median(D)),
                                           max_angle_deg=self.max_angle_deg, max_translation=self.max_translation)
            s = synthesize_view(img, D, K, R, t, photometric_eps=self.photometric_eps)
            news.append(s.new_view)
            flows.append(s.flow)
            masks.append(s.mask)
        return np.stack(news), np.stack(flows), np.stack(masks)

    def _flow_loss(self, out, target, mask, trim):
        from ._loss import trimmed_l1

        preds = self.net_.crop_predictions(*target.shape[2:])
        if len(preds) > 1:                       # iterative nets (RAFT): the sequence loss, gamma 0.8
            n = len(preds)
            w = [0.8 ** (n - 1 - i) for i in range(n)]
            return sum(wi * trimmed_l1(p, target, mask, trim) for wi, p in zip(w, preds)) / sum(w)
        return trimmed_l1(out, target, mask, trim)

    # ------------------------------------------------------------------ fit
    def fit(self, pairs, epochs=1, *, steps=None):
        """Train on unaligned cross-modal pairs (their ``flow`` is never used).

        Parameters
        ----------
        pairs : CrossModalPairs
            From :func:`crossmodal_pairs` (or any object with ``image_a`` (N, H, W, 3), ``image_b``
            (N, H, W) and optional ``depth_a``/``depth_b``).
        epochs : int
            Passes over the pairs (``ceil(N / batch_size)`` steps each).
        steps : int, optional
            Number of steps instead of ``epochs``.

        Returns
        -------
        self
        """
        import torch
        import torch.nn.functional as F

        from iclr26sci.core import progress
        from iclr26sci.geom import backward_warp

        from ._appearance import compose_affine_flow

        A = getattr(pairs, "image_a", None)
        B = getattr(pairs, "image_b", None)
        if A is None or B is None:
            raise InputError("pairs", f"got {type(pairs).__name__}", "a CrossModalPairs (image_a, image_b)")
        try:
            A = np.asarray(A, np.float32)
            B = np.asarray(B, np.float32)
        except (TypeError, ValueError):
            raise InputError("pairs", "has image_a / image_b that are not numeric arrays", "numeric images") from None
        if B.ndim == 4 and B.shape[-1] == 1:
            B = B[..., 0]
        if A.ndim == 3:
            A = np.repeat(A[..., None], 3, -1)
        if A.ndim != 4 or A.shape[-1] != 3 or B.ndim != 3 or A.shape[:3] != B.shape:
            raise InputError("pairs", f"image_a {A.shape} and image_b {B.shape}",
                             "image_a (N, H, W, 3) and image_b (N, H, W) of the same size")
        if A.shape[0] == 0:
            raise InputError("pairs", "holds no pair", "at least one image pair")
        if min(A.shape[1:3]) < 16:
            raise InputError("pairs", f"has {A.shape[1]}x{A.shape[2]} images", "images of at least 16x16 pixels")
        if not (np.isfinite(A).all() and np.isfinite(B).all()):
            raise InputError("pairs", "contain NaN or infinite pixels", "finite images in [0, 1]")
        try:
            check_unit_range(A, "pairs")
            check_unit_range(B, "pairs")
        except InputError as exc:
            raise InputError("pairs", f"images {exc.problem}", exc.expected) from None
        if steps is None:
            epochs = _check_int(epochs, "epochs")
        else:
            steps = _check_int(steps, "steps")
        self._check_params()
        dA = getattr(pairs, "depth_a", None)
        dB = getattr(pairs, "depth_b", None)
        if self.depth == "pairs" and (dA is None or dB is None):
            raise InputError("depth", "is 'pairs' but the pairs carry no depth maps", "'auto' or 'random'")
        for name, dd in (("depth_a", dA), ("depth_b", dB)):
            if dd is not None and (np.shape(dd) != B.shape or not np.all(np.isfinite(dd)) or np.any(np.asarray(dd) <= 0)):
                raise InputError("pairs", f"has {name} of shape {np.shape(dd)} or with values <= 0 / non-finite",
                                 f"depth maps {B.shape} > 0")
        g, tseed = self._seed()
        self.net_, self.translator_, dev = self._validate(tseed, A.shape[1], A.shape[2])
        trim = float(self.trim)
        use_depth = self.depth == "pairs" or (self.depth == "auto" and dA is not None and dB is not None)
        N, H, W = B.shape
        bs = min(int(self.batch_size), N)
        n_steps = steps if steps is not None else epochs * int(np.ceil(N / bs))
        c_start = int(np.ceil(self.consistency_start * n_steps))
        w_end = int(np.ceil(self.translator_warmup * n_steps))
        params = list(self.net_.parameters()) + list(self.translator_.parameters())
        opt = torch.optim.Adam(params, lr=float(self.lr))
        sched = None
        if self.lr_schedule == "onecycle" and n_steps > 1:
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, float(self.lr), total_steps=n_steps, pct_start=0.05,
                                                        cycle_momentum=False)
        tA = torch.as_tensor(A.transpose(0, 3, 1, 2).copy(), device=dev)
        tB = torch.as_tensor(np.repeat(B[:, None], 3, 1), device=dev)
        hist = {"flow": [], "T": [], "C": [], "appearance": []}
        t0 = time.perf_counter()
        self.net_.train()
        self.translator_.train()
        order = g.permutation(N)
        pos = 0
        for step in progress(range(n_steps), desc=f"DCFlow ({self.objective})", total=n_steps):
            if pos + bs > N:
                order, pos = g.permutation(N), 0
            idx = order[pos:pos + bs]
            pos += bs
            Ia, Ib = tA[idx], tB[idx]
            opt.zero_grad()
            if self.objective == "appearance":
                Ta = self.translator_(Ia)
                fl = self.net_(Ta, Ib)
                warped, valid = backward_warp(Ta, fl)
                la = structural_loss(warped, Ib, valid)
                # edge-aware first-order smoothness of the flow, weighted by B's gradients
                gx = (fl[..., :, 1:] - fl[..., :, :-1]).abs().sum(1)
                gy = (fl[..., 1:, :] - fl[..., :-1, :]).abs().sum(1)
                wx = torch.exp(-10 * (Ib[..., :, 1:] - Ib[..., :, :-1]).abs().mean(1))
                wy = torch.exp(-10 * (Ib[..., 1:, :] - Ib[..., :-1, :]).abs().mean(1))
                sm = (gx * wx).mean() + (gy * wy).mean()
                loss = la + float(self.smooth_weight) * sm
                hist["appearance"].append(float(la.detach()))
            else:
                # (i) flow loss on intra-modal synthetic triplets, T frozen
                a_np = A[idx]
                b_np = B[idx]
                da = dA[idx] if use_depth else None
                db = dB[idx] if use_depth else None
                newA, fA, mA = self._synth_batch(a_np, da, g)
                newB, fB, mB = self._synth_batch(b_np, db, g)
                tnA = torch.as_tensor(newA.transpose(0, 3, 1, 2).astype(np.float32), device=dev)
                tnB = torch.as_tensor(np.repeat(newB[:, None], 3, 1).astype(np.float32), device=dev)
                tfA = torch.as_tensor(fA.transpose(0, 3, 1, 2).astype(np.float32), device=dev)
                tfB = torch.as_tensor(fB.transpose(0, 3, 1, 2).astype(np.float32), device=dev)
                tmA, tmB = torch.as_tensor(mA, device=dev), torch.as_tensor(mB, device=dev)
                with torch.no_grad():
                    TnA, TA0 = self.translator_(tnA), self.translator_(Ia)
                # F(I', I) is on I's grid pointing into I': it predicts F_S
                lf = self._flow_loss(self.net_(TnA, TA0), tfA, tmA, trim) + \
                    self._flow_loss(self.net_(tnB, Ib), tfB, tmB, trim)
                # (ii) translation loss, F frozen (stop-gradient on the flow)
                Ta = self.translator_(Ia)
                with torch.no_grad():
                    fl = self.net_(Ta.detach(), Ib)
                warped, valid = backward_warp(Ta, fl if step >= w_end else torch.zeros_like(fl))
                lt = structural_loss(warped, Ib, valid)
                loss = lf + float(self.lambda_T) * lt
                hist["flow"].append(float(lf.detach()))
                hist["T"].append(float(lt.detach()))
                # (iii) cross-modal consistency, both networks
                if self.consistency and self.lambda_C > 0 and step >= c_start:
                    HA = [random_affine(g, center=(W / 2, H / 2)) for _ in idx]
                    HB = [random_affine(g, center=(W / 2, H / 2)) for _ in idx]
                    from ._appearance import warp_affine

                    wa = torch.cat([warp_affine(Ia[k:k + 1], HA[k])[0] for k in range(len(idx))])
                    wb = torch.cat([warp_affine(Ib[k:k + 1], HB[k])[0] for k in range(len(idx))])
                    tgt, msk = [], []
                    for k in range(len(idx)):
                        ft, mk = compose_affine_flow(fl[k:k + 1].detach(), HA[k], HB[k])
                        tgt.append(ft)
                        msk.append(mk)
                    tgt, msk = torch.cat(tgt), torch.cat(msk)
                    out = self.net_(self.translator_(wa), wb)
                    lc = self._flow_loss(out, tgt, msk, trim)
                    loss = loss + float(self.lambda_C) * lc
                    hist["C"].append(float(lc.detach()))
            loss.backward()
            # each network's gradient is clipped on its own (the decoupled losses do not share a scale)
            torch.nn.utils.clip_grad_norm_(list(self.net_.parameters()), 10.0)
            torch.nn.utils.clip_grad_norm_(list(self.translator_.parameters()), 10.0)
            opt.step()
            if sched is not None:
                sched.step()
        self.net_.eval()
        self.translator_.eval()
        self.history_ = hist
        self.n_steps_ = n_steps
        self.fit_seconds_ = time.perf_counter() - t0
        self.input_size_ = (H, W)
        return self

    # ------------------------------------------------------------------ predict
    def predict(self, image_a, image_b):
        """Flow on ``image_b``'s grid pointing into ``image_a``: ``image_b(x) ~ image_a(x + flow(x))``.

        Parameters
        ----------
        image_a : array (H, W, 3) or (H, W)
            Modality A (the one the translator maps from, e.g. RGB).
        image_b : array (H, W) or (H, W, 3)
            Modality B, same size.

        Returns
        -------
        flow : ndarray (H, W, 2), float32, pixels
        """
        import torch

        check_is_fitted(self, ["net_", "translator_"], method="predict")
        a = _to_chw3(image_a, "image_a")
        b = _to_chw3(image_b, "image_b")
        if a.shape != b.shape:
            raise InputError("image_b", f"is {b.shape[1]}x{b.shape[2]} but image_a is {a.shape[1]}x{a.shape[2]}",
                             "two images of the same size")
        dev = next(self.net_.parameters()).device
        with torch.no_grad():
            ta = torch.as_tensor(a[None], device=dev)
            tb = torch.as_tensor(b[None], device=dev)
            out = self.net_(self.translator_(ta), tb)
        return out[0].permute(1, 2, 0).cpu().numpy()

    def __repr__(self, N_CHAR_MAX=700):
        net = self.net if isinstance(self.net, str) else type(self.net).__name__
        fitted = f", fitted {self.n_steps_} steps" if hasattr(self, "n_steps_") else ""
        return f"DCFlow(net={net!r}, objective={self.objective!r}, trim={self.trim}, " \
               f"consistency={self.consistency}{fitted})"

    def summary(self) -> str:
        """Settings and (when fitted) the final losses."""
        s = repr(self)
        if hasattr(self, "history_"):
            last = {k: round(float(np.mean(v[-20:])), 4) for k, v in self.history_.items() if v}
            s += f"\n  final losses (mean of last 20 steps): {last}; {self.fit_seconds_:.1f} s"
        return s

    def to_dict(self) -> dict:
        """Parameters and fitted summary as plain values."""
        d = {k: (v if isinstance(v, (str, int, float, bool, type(None))) else type(v).__name__)
             for k, v in self.get_params(deep=False).items()}
        if hasattr(self, "n_steps_"):
            d.update(n_steps=self.n_steps_, fit_seconds=self.fit_seconds_,
                     final_losses={k: float(np.mean(v[-20:])) for k, v in self.history_.items() if v})
        return d


def appearance_only(net="pwc_tiny", **kwargs):
    """The appearance-only baseline (NeMAR-mini) in the same harness: ``DCFlow(objective="appearance")``.

    Examples
    --------
    >>> appearance_only().objective
    'appearance'
    """
    fixed = sorted({"objective", "consistency"} & set(kwargs))
    if fixed:
        raise InputError(fixed[0], "is fixed by the appearance-only baseline",
                         "DCFlow(objective=...) for other objectives")
    import inspect

    known = set(inspect.signature(DCFlow.__init__).parameters) - {"self"}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise InputError(unknown[0], "is not a parameter of DCFlow", "one of " + ", ".join(sorted(known)))
    return DCFlow(net=net, objective="appearance", consistency=False, **kwargs)
