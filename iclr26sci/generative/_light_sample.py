r"""LIGHT's samplers: synchronous DDIM with text classifier-free guidance, and the two-pass pace-induced guidance.

Notation: ``S`` sampling steps with levels :math:`L_0 = K-1 > L_1 > \dots > L_S = -1` (:func:`iclr26sci.nn.ddim_levels`);
state :math:`x(m)` is at level :math:`L_m`. :math:`G` is the x0 denoiser, :math:`\omega_1` the text-guidance weight
(``text_weight - 1``), :math:`\omega_2` the pace weight (``weight - 1``).

*Pass U (unified)*: synchronous DDIM from the initial noise with text CFG,
:math:`\tilde x_0 = \hat x_{cur} + \omega_1(\hat x_{cur} - \hat x_\varnothing)`; every state :math:`U(m)` is kept.

*Pass S (staged)*: DDIM from the **same** initial noise. At a guided step (the released code's window:
``begin <= m <= S + 1 - upstop``, ``m % k_div == 0`` and ``m + delta <= S - 2``),

- :math:`\hat x_{cur} = G(x(m), L_m, d)`;
- :math:`\hat x_{pace} = G([U^{m_1}(m+\delta), x^{m_2}(m)], [L_{m+\delta}, L_m], d)`: the leaders replaced by their
  pass-U states :math:`\delta` steps further along (cleaner);
- :math:`\hat x_\varnothing = G(x(m), L_m, \varnothing)`;
- followers: :math:`\tilde x_0 = \hat x_{cur} + \omega_2(\hat x_{pace} - \hat x_{cur}) + \omega_1(\hat x_{cur} - \hat x_\varnothing)`;
  leaders: :math:`\tilde x_0 = \hat x_{cur} + \omega_1(\hat x_{cur} - \hat x_\varnothing)`.

Outside the window pass S takes plain text-CFG steps. The sample is pass S. ``code_faithful=True`` reproduces the
released ``cfg_step``, which adds the text term a second time to the followers at guided steps (an effective
:math:`2\omega_1`). At :math:`\delta = 0` or :math:`\omega_2 = 0` (paper formula) pass S equals pass U bit for bit.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from iclr26sci.core import InputError, check_bool

__all__ = ["PaceGuidance", "ddim_sample"]


def _int(v, name, low=0):
    if isinstance(v, bool) or not isinstance(v, Integral) or v < low:
        raise InputError(name, f"got {v!r}", f"an integer >= {low}")
    return int(v)


def _nonneg(v, name):
    if isinstance(v, bool) or not isinstance(v, Real) or not np.isfinite(v) or v < 0:
        raise InputError(name, f"got {v!r}", "a finite number >= 0 (1 means no guidance of this kind)")
    return float(v)


@dataclass(frozen=True)
class PaceGuidance:
    r"""Settings of pace-induced guidance: which modalities lead, how far ahead, and how strongly.

    Parameters
    ----------
    leaders : tuple of str
        The modalities :math:`m_1` taken ``delta`` steps further along pass U (the cleaner ones).
    followers : tuple of str, optional
        The guided modalities :math:`m_2` (default: all the others).
    delta : int >= 0
        The pace gap :math:`\delta` in sampling steps (paper default 250 of 499; OMOMO/BEHAVE/InterAct use 50-350).
    weight : float >= 0
        ``df_weight`` :math:`w`; the pace term's weight is :math:`\omega_2 = w - 1` (1: no pace guidance).
    text_weight : float >= 0
        ``df_tweight`` / ``guidance_param``; the text CFG weight is :math:`\omega_1` = ``text_weight - 1`` (the
        released scripts use 1.5).
    k_div : int >= 1
        Guide every ``k_div``-th step of the window.
    begin : int >= 0
        First guided step (``df_begin``).
    upstop : int, optional
        ``df_upstop``: steps ``m > S + 1 - upstop`` are not guided. Default: the released 470 of 499, scaled to
        ``S`` steps (the first ``round(30 S / 499)`` steps, at high noise).
    code_faithful : bool
        Reproduce the released code's double-counted text term for the followers at guided steps.

    Examples
    --------
    >>> g = PaceGuidance(leaders=("body",), delta=10, weight=2.0)
    >>> g.window(99)
    (0, 6)
    """

    leaders: tuple = ("body",)
    followers: tuple | None = None
    delta: int = 10
    weight: float = 2.0
    text_weight: float = 1.5
    k_div: int = 1
    begin: int = 0
    upstop: int | None = None
    code_faithful: bool = False

    def __post_init__(self):
        for name in ("leaders", "followers"):
            v = getattr(self, name)
            if v is None and name == "followers":
                continue
            if isinstance(v, str):
                v = (v,)
                object.__setattr__(self, name, v)
            if not isinstance(v, (tuple, list)) or not v or not all(isinstance(s, str) for s in v):
                raise InputError(name, f"got {v!r}", "a non-empty tuple of modality names")
            object.__setattr__(self, name, tuple(v))
        _int(self.delta, "delta")
        _nonneg(self.weight, "weight")
        _nonneg(self.text_weight, "text_weight")
        _int(self.k_div, "k_div", 1)
        _int(self.begin, "begin")
        if self.upstop is not None:
            _int(self.upstop, "upstop")
        check_bool(self.code_faithful, "code_faithful")

    def window(self, S: int):
        """``(first, last)`` step of the guidance window for ``S`` sampling steps (before k_div and delta)."""
        S = _int(S, "S", 1)
        up = self.upstop if self.upstop is not None else S + 1 - max(1, int(round(30 * S / 499)))
        return self.begin, S + 1 - up

    def guided_steps(self, S: int) -> np.ndarray:
        """The steps m at which pass S applies pace guidance."""
        S = _int(S, "S", 1)
        lo, hi = self.window(S)
        m = np.arange(S)
        return m[(m >= lo) & (m <= hi) & (m % self.k_div == 0) & (m + self.delta <= S - 2)]

    def resolve(self, names, S: int):
        """Check against the model's modality names and ``S`` steps; returns (leader idx, follower idx)."""
        for v, what in ((self.leaders, "leaders"), (self.followers or (), "followers")):
            bad = [s for s in v if s not in names]
            if bad:
                raise InputError(what, f"has unknown modalities {bad}", f"names among the model's {list(names)}")
        fol = self.followers if self.followers is not None else tuple(n for n in names if n not in self.leaders)
        if set(fol) & set(self.leaders) or not fol:
            raise InputError("followers", f"got {fol!r} with leaders {self.leaders!r}",
                             "a non-empty set of modalities disjoint from the leaders")
        if self.delta > S - 2:
            raise InputError("delta", f"got {self.delta} with {S} sampling steps",
                             f"a pace gap of at most S - 2 = {S - 2} steps")
        if len(self.guided_steps(S)) == 0:   # guidance that never acts is a silent no-op: refuse it
            lo, hi = self.window(S)
            arg = "begin" if lo > min(hi, S - 2 - self.delta) else "upstop"
            raise InputError(arg, f"leaves no guided step with {S} sampling steps (window [{lo}, {hi}], delta "
                             f"{self.delta}, k_div {self.k_div})", "settings under which some step is guided")
        return [names.index(s) for s in self.leaders], [names.index(s) for s in fol]

    def summary(self) -> str:
        """One line with the settings."""
        return (f"pace guidance: leaders {self.leaders} -> followers {self.followers or 'rest'}, delta={self.delta}, "
                f"w={self.weight}, text w={self.text_weight}, k_div={self.k_div}"
                + (", code-faithful text term" if self.code_faithful else ""))

    def to_dict(self) -> dict:
        """The settings as a dict."""
        return {"leaders": list(self.leaders), "followers": None if self.followers is None else list(self.followers),
                "delta": self.delta, "weight": self.weight, "text_weight": self.text_weight, "k_div": self.k_div,
                "begin": self.begin, "upstop": self.upstop, "code_faithful": self.code_faithful}


def ddim_sample(denoise, x_init, levels, schedule, *, text_weight=1.0, guidance=None, names=None,
                return_passes=False, fuse=False):
    r"""Run synchronous DDIM (pass U), and with ``guidance`` also the pace-guided pass S; returns the sample.

    Only the work the sample needs is done: pass U stops at the last state pass S reads,
    :math:`U(m^{*}_{last} + \delta)` (the released code runs it to the end), and pass S starts from
    :math:`U(m^{*}_{first})`, since before its first guided step it takes the same steps as pass U. Both shortcuts
    leave the sample bit for bit unchanged. With ``G`` forward evaluations per unguided step (1, or 2 with text CFG),
    pace guidance costs :math:`G (m^{*}_{last} + \delta) + G (S - m^{*}_{first}) + n_{guided}` evaluations
    against :math:`G S` unguided. ``fuse=True`` stacks all evaluations of one step (pass U's step
    :math:`m + \delta`, pass S's step :math:`m`: conditional, text-dropped and pace inputs) into one batched call
    of ``denoise``, so the two passes run as one batched pass; on a small batch that costs little more wall time
    than one pass.

    Parameters
    ----------
    denoise : callable
        ``denoise(xs, levels, null) -> list of x0 predictions``: ``xs`` a list of (B, T, D_m) tensors, ``levels`` a
        (B, M) long tensor, ``null`` a bool (text dropped). With ``fuse=True`` the batch is ``k B`` (k stacked
        copies, in order) and ``null`` is a (k B,) bool tensor: ``denoise`` must repeat its own per-sample
        conditioning ``k`` times.
    x_init : list of torch.Tensor
        The initial noise of each modality.
    levels : array of int (S + 1,)
        The level sequence, from ``K - 1`` to -1.
    schedule : iclr26sci.nn.DiffusionSchedule
    text_weight : float
        Text CFG weight of pass U (and of pass S when ``guidance`` is None).
    guidance : PaceGuidance, optional
    names : tuple of str
        Modality names of the tokens (for ``guidance``).
    return_passes : bool
        Also return the pass-U states (then pass U runs all ``S`` steps).
    fuse : bool
        One batched ``denoise`` call per step. The same sampler; the sample agrees with ``fuse=False`` up to float
        rounding of batched matrix products (the bitwise limits of check L3 are stated for ``fuse=False``).

    Returns
    -------
    list of torch.Tensor, or (sample, U states) with ``return_passes``.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import DiffusionSchedule, ddim_levels
    >>> den = lambda xs, lv, null: [0.5 * x for x in xs]          # a toy x0 predictor
    >>> x = [torch.randn(2, 4, 3, generator=torch.Generator().manual_seed(0)) for _ in range(2)]
    >>> a = ddim_sample(den, x, ddim_levels(10, 5), DiffusionSchedule(10))
    >>> b = ddim_sample(den, x, ddim_levels(10, 5), DiffusionSchedule(10),
    ...                 guidance=PaceGuidance(("a",), delta=0, weight=3.0, text_weight=1.0), names=("a", "b"))
    >>> bool(torch.equal(a[1], b[1]))
    True
    """
    import torch

    from iclr26sci.nn._diffusion import DiffusionSchedule, ddim_step

    if not callable(denoise):
        raise InputError("denoise", f"got {type(denoise).__name__}", "a callable (xs, levels, null) -> x0 predictions")
    if not isinstance(x_init, (list, tuple)) or not x_init or not all(torch.is_tensor(x) for x in x_init):
        raise InputError("x_init", f"got {type(x_init).__name__}", "a non-empty list of (B, T, D_m) tensors")
    lead = tuple(x_init[0].shape[:2])
    for m, x in enumerate(x_init):
        if x.ndim != 3 or tuple(x.shape[:2]) != lead or x.shape[0] == 0:
            raise InputError("x_init", f"entry {m} has shape {tuple(x.shape)}",
                             f"(B, T, D_m) tensors sharing B, T = {lead} (B >= 1)")
        if not x.is_floating_point() or not bool(torch.isfinite(x).all()):
            raise InputError("x_init", f"entry {m} is not a finite floating tensor", "finite initial noise")
    text_weight = _nonneg(text_weight, "text_weight")
    if names is not None and (isinstance(names, str) or len(names) != len(x_init)):
        raise InputError("names", f"got {names!r}", f"{len(x_init)} modality names, one per token tensor")
    lv_arr = np.asarray(levels)
    if lv_arr.ndim != 1 or len(lv_arr) < 2 or lv_arr.dtype.kind not in "iu" or np.any(np.diff(lv_arr) >= 0) \
            or lv_arr[-1] != -1:
        raise InputError("levels", f"got {levels!r}", "a strictly decreasing integer sequence ending at -1 (ddim_levels)")
    if not isinstance(schedule, DiffusionSchedule) or lv_arr[0] > schedule.K - 1:
        raise InputError("schedule", f"got {schedule!r}", f"a DiffusionSchedule with K > {lv_arr[0]}")
    if guidance is not None and not isinstance(guidance, PaceGuidance):
        raise InputError("guidance", f"got {type(guidance).__name__}", "a PaceGuidance or None")
    if guidance is not None and names is None:
        raise InputError("names", "is missing", "the modality names of the tokens (for the guidance)")
    check_bool(return_passes, "return_passes")
    check_bool(fuse, "fuse")
    S = len(levels) - 1
    B, M = x_init[0].shape[0], len(x_init)
    dev = x_init[0].device

    def lv(v):
        return torch.full((B, M), int(v), dtype=torch.long, device=dev)

    def step(xs, x0s, m):
        a = torch.full((B,), int(levels[m]), dtype=torch.long, device=dev)
        b = torch.full((B,), int(levels[m + 1]), dtype=torch.long, device=dev)
        return [ddim_step(schedule, x, x0, a[:, None], b[:, None]) for x, x0 in zip(xs, x0s)]

    def run(reqs):
        """Evaluate ``denoise`` on a list of (xs, levels, null) requests: one call each, or one stacked call."""
        if not fuse or len(reqs) == 1:
            return [denoise(xs, lvl, null) for xs, lvl, null in reqs]
        xs = [torch.cat([r[0][i] for r in reqs]) for i in range(M)]
        lvl = torch.cat([r[1] for r in reqs])
        null = torch.cat([torch.full((B,), bool(r[2]), dtype=torch.bool, device=dev) for r in reqs])
        out = denoise(xs, lvl, null)
        return [[o[k * B:(k + 1) * B] for o in out] for k in range(len(reqs))]

    tw = guidance.text_weight if guidance is not None else text_weight
    w1 = float(tw) - 1.0

    def cfg_reqs(xs, m):
        return [(xs, lv(levels[m]), False)] + ([(xs, lv(levels[m]), True)] if w1 != 0 else [])

    def cfg_x0(outs):
        c = outs[0]
        if w1 == 0:
            return list(c), c, None
        u = outs[1]
        return [ci + w1 * (ci - ui) for ci, ui in zip(c, u)], c, u

    guided = []
    if guidance is not None:
        lead, fol = guidance.resolve(tuple(names), S)
        w2 = float(guidance.weight) - 1.0
        guided = guidance.guided_steps(S).tolist()
        gset = set(guided)
        d = guidance.delta
    # pass U: all S steps without guided steps (then pass S is pass U) or when asked for; else up to U[last + delta]
    U_len = S if (not guided or return_passes) else guided[-1] + d
    keep = guidance is not None or return_passes
    U = [list(x_init)]
    u = list(x_init)
    first = guided[0] if guided else S
    with torch.no_grad():
        for m in range(U_len if not guided else first + d):              # pass U alone until U[first + delta]
            u = step(u, cfg_x0(run(cfg_reqs(u, m)))[0], m)
            if keep:
                U.append(u)
        if not guided:
            return (u, U) if return_passes else u
        xs = list(U[first])
        for m in range(first, S):
            mu = len(U) - 1                                               # = m + delta while pass U runs
            reqs = cfg_reqs(U[mu], mu) if mu < U_len else []
            nu = len(reqs)
            reqs += cfg_reqs(xs, m)
            if m in gset:
                mixed = [U[m + d][i] if i in lead else xs[i] for i in range(M)]
                lvp = lv(levels[m])
                lvp[:, lead] = int(levels[m + d])
                reqs.append((mixed, lvp, False))
            outs = run(reqs)
            if nu:
                U.append(step(U[mu], cfg_x0(outs[:nu])[0], mu))
            ns = 2 if w1 != 0 else 1
            x0, c, uo = cfg_x0(outs[nu:nu + ns])
            if m in gset:
                p = outs[nu + ns]
                for i in fol:
                    g = c[i] + w2 * (p[i] - c[i])
                    if uo is not None:
                        g = g + w1 * (c[i] - uo[i])
                        if guidance.code_faithful:
                            g = g + w1 * (c[i] - uo[i])
                    x0[i] = g
            xs = step(xs, x0, m)
    return (xs, U) if return_passes else xs
