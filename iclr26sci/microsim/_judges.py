"""Offline judges for MicroWorldBench scoring: oracle, random, keyword (text-only) and physics (measured).

Every judge is a callable ``judge(frames, request) -> verdicts`` (the :class:`~iclr26sci.microsim.Judge`
protocol), so a real vision-language-model judge plugs into :func:`~iclr26sci.microsim.score_video` the same way.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable, Mapping

import numpy as np

from iclr26sci.core import InputError, as_generator, check_in_range

__all__ = ["OracleJudge", "RandomJudge", "KeywordJudge", "PhysicsJudge", "PHYSICS_RULES"]


def _check_request(request):
    from ._rubric import JudgeRequest

    if not isinstance(request, JudgeRequest):
        raise InputError("request", f"got {type(request).__name__}", "a JudgeRequest (judges are called by score_video)")
    return request


class OracleJudge:
    """A judge that returns known verdicts.

    Parameters
    ----------
    truth : None, dict or callable
        ``None``: the perfect video (every positive point met, no penalty present). A dict keyed by dimension
        (``{"scientific": [1, 0, ...], ...}``) or by ``(task index, dimension)`` gives the bits in criterion
        order; a callable ``truth(request) -> bits`` computes them.

    Examples
    --------
    >>> from iclr26sci.microsim import Rubric, score_video
    >>> import numpy as np
    >>> t = Rubric.example().task("diffusion")
    >>> score_video(np.zeros((8, 8, 8)), t, OracleJudge()).total
    100.0
    """

    def __init__(self, truth=None):
        if truth is not None and not isinstance(truth, Mapping) and not callable(truth):
            raise InputError("truth", f"got {type(truth).__name__}", "None, a dict of bits, or a callable(request)")
        if isinstance(truth, Mapping):
            from ._rubric import _DIM_KEYS, _bit

            for k, bits in truth.items():
                dim = k[1] if isinstance(k, tuple) and len(k) == 2 else k
                if not isinstance(dim, str) or dim not in _DIM_KEYS:
                    raise InputError("truth", f"has the key {k!r}", "dimension names or (task index, dimension) keys")
                if isinstance(bits, (str, bytes)) or not hasattr(bits, "__iter__"):
                    raise InputError("truth", f"[{k!r}] is a {type(bits).__name__}", "a list of 0/1 bits")
                for b in bits:
                    _bit(b, f"truth[{k!r}]", "truth")
        self.truth = truth

    def __call__(self, frames, request):
        request = _check_request(request)
        if self.truth is None:
            return [int(c.positive) for c in request.criteria]
        if callable(self.truth) and not isinstance(self.truth, Mapping):
            return self.truth(request)
        for key in ((request.task.index, request.dimension), request.dimension):
            if key in self.truth:
                return list(self.truth[key])
        raise InputError("truth", f"has no bits for task {request.task.index} {request.dimension}",
                         "an entry per dimension or per (task index, dimension)")

    def __repr__(self):
        return f"OracleJudge(truth={'perfect' if self.truth is None else type(self.truth).__name__})"


class RandomJudge:
    """Independent Bernoulli(p) verdicts: the chance baseline of a judge.

    Parameters
    ----------
    p : float
        Probability of a 1 for every criterion, in [0, 1].
    rng : seed
        SPEC-7 seed.

    Examples
    --------
    >>> from iclr26sci.microsim import Rubric, score_video
    >>> import numpy as np
    >>> t = Rubric.example().task("diffusion")
    >>> 0 <= score_video(np.zeros((8, 8, 8)), t, RandomJudge(rng=0)).total <= 100
    True
    """

    def __init__(self, p=0.5, rng=None):
        self.p = check_in_range(p, "p", 0.0, 1.0)
        self.rng = as_generator(rng)

    def __call__(self, frames, request):
        request = _check_request(request)
        return (self.rng.random(len(request.criteria)) < self.p).astype(int).tolist()

    def __repr__(self):
        return f"RandomJudge(p={self.p:g})"


_STOP = set("""a an the and or of to in on at by for with from as is are be been being that this these those it its
their them they into onto over under between not no nor but than then so such very more most less least each every
any all some must should show shows showing video clip scene frame frames""".split())


def _words(text):
    return {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _STOP}


class KeywordJudge:
    """A text-only judge: a criterion holds when enough of its content words appear in a caption of the video.

    This is the blind baseline a real judge must beat: it never looks at the pixels. With ``caption=None`` the
    task's own prompt is the caption (a judge that believes the video shows what was asked).

    Parameters
    ----------
    caption : str, optional
        A description of what the video shows.
    threshold : float
        Fraction of the criterion's content words (>= 4 letters, stop words removed) that must occur in the
        caption, in (0, 1].

    Examples
    --------
    >>> from iclr26sci.microsim import Rubric, score_video
    >>> import numpy as np
    >>> t = Rubric.example().task("brownian_motion")
    >>> s = score_video(np.zeros((8, 8, 8)), t, KeywordJudge("beads in brownian motion, a diffusive random walk"))
    >>> s.verdicts["scientific"][0]
    1
    """

    def __init__(self, caption=None, threshold=0.3):
        if caption is not None and not isinstance(caption, str):
            raise InputError("caption", f"got {type(caption).__name__}", "a string or None")
        self.caption = caption
        self.threshold = check_in_range(threshold, "threshold", 0.0, 1.0, low_open=True)

    def __call__(self, frames, request):
        request = _check_request(request)
        cap = _words(self.caption if self.caption is not None else f"{request.task.task} {request.task.requirement}")
        out = []
        for c in request.criteria:
            w = _words(c.description) - {"penalty"}
            out.append(int(bool(w) and len(w & cap) / len(w) >= self.threshold))
        return out

    def __repr__(self):
        return f"KeywordJudge(threshold={self.threshold:g}, caption={'task prompt' if self.caption is None else 'given'})"


#: property name -> regular expression on a criterion's description that makes it physics-checkable
PHYSICS_RULES = {
    "ballistic": r"ballistic|straight[- ]lines?|constant velocity",
    "teleport": r"teleport|jumps?\b|discontinu|vanish|escape",
    "frozen": r"frozen|freez|static frame|stutter|\bstuck",
    "flicker": r"flicker|brightness jump",
    "confined": r"confine|plateau|bounded|trap centre",
    "diffusive": r"brownian|random walk|diffusive|thermal fluctuation|mean squared displacement grows",
    "drift": r"chemotaxis|net drift|drifts? up|biased random walk",
    "no_drift": r"no (collective )?drift|not carried",
    "parabolic": r"parabolic|poiseuille",
    "plug": r"plug flow|uniform velocity",
    "growth": r"divide|division|fission|grows exponentially|population grows",
    "spreading": r"spreads? by diffusion|widens",
}


_NEG = re.compile(r"\b(no|without|not|never|nor|free of)\b", re.I)


class PhysicsJudge:
    r"""A judge that measures the video for the criteria it can check physically.

    A criterion whose description matches one of ``rules`` (default :data:`PHYSICS_RULES`) is decided by a
    measurement on the whole clip (the judge needs consecutive frames, so it reads ``request.video``, not only
    the 8 sampled frames):

    - tracks (detection, linking, MSD): ``diffusive`` (alpha within ``alpha_range``, no teleports, not frozen),
      ``ballistic`` (alpha above the range), ``confined`` (alpha below 0.5 at long lags), ``teleport``
      (heavy-tailed displacements), ``drift`` / ``no_drift`` (mean velocity more / less than 4 standard errors
      from zero), ``parabolic`` / ``plug`` (transverse velocity profile fits a parabola with curvature
      significantly non-zero, or not);
    - frames: ``frozen`` (identical consecutive frames), ``flicker`` (frame-mean jumps);
    - cell counts: ``growth`` (the count increases: log-count slope > 3 standard errors);
    - intensity field: ``spreading`` (the spatial variance of the intensity grows).

    A positive point is met when its property holds; a penalty point is present when its property holds (a
    criterion matching several properties: positive needs all, penalty any). A keyword preceded by a negation
    ("no", "without", "not", "never", "free of") within 30 characters asks for the property's absence. Criteria no rule matches go to
    ``fallback`` (a judge) or get 0.

    Parameters
    ----------
    rules : dict, optional
        Property name -> regular expression (case-insensitive); the names must be among the defaults.
    fallback : callable, optional
        Judge for the criteria no rule matches.
    alpha_range : (float, float)
        Diffusive range of the MSD exponent.

    Examples
    --------
    >>> from iclr26sci.microsim import Rubric, score_video, simulate, render
    >>> v = render(simulate("brownian", n_particles=30, D=0.5, dt=0.05, steps=60, rng=0), shape=(96, 96), rng=0)
    >>> s = score_video(v, Rubric.example().task("brownian_motion"), PhysicsJudge())
    >>> s.verdicts["scientific"][0], s.verdicts["scientific"][4]
    (1, 0)
    """

    def __init__(self, rules=None, fallback=None, alpha_range=(0.8, 1.2)):
        if rules is not None and not isinstance(rules, Mapping):
            raise InputError("rules", f"got {type(rules).__name__}", "a dict property name -> regular expression")
        rules = dict(PHYSICS_RULES if rules is None else rules)
        for k, v in rules.items():
            if k not in PHYSICS_RULES:
                raise InputError("rules", f"names the unknown property {k!r}", "keys among " + ", ".join(PHYSICS_RULES))
            try:
                re.compile(v)
            except (re.error, TypeError):
                raise InputError("rules", f"has an invalid pattern for {k!r}: {v!r}", "a regular expression") from None
        if fallback is not None and not callable(fallback):
            raise InputError("fallback", f"got {type(fallback).__name__}", "a judge callable or None")
        from ._analysis import check_alpha_range

        self.alpha_range = check_alpha_range(alpha_range)
        self.rules = {k: re.compile(v, re.I) for k, v in rules.items()}
        self.fallback = fallback
        self._cache: dict = {}
        self.last_decisions_: list = []

    def __repr__(self):
        return f"PhysicsJudge(rules={len(self.rules)}, fallback={self.fallback!r})"

    def properties(self, video, names=None) -> dict:
        """Measure the properties ``names`` (default all) on a video; measurements are cached per video."""
        from ._render import as_frames

        want = list(PHYSICS_RULES) if names is None else names
        if isinstance(want, str) or not hasattr(want, "__iter__"):
            raise InputError("names", f"got {want!r}", "a list of property names")
        want = list(want)
        unknown = [n for n in want if n not in PHYSICS_RULES]
        if unknown:
            raise InputError("names", f"has the unknown property {unknown[0]!r}", "names among " + ", ".join(PHYSICS_RULES))
        as_frames(video)
        key = id(video)
        if key not in self._cache:
            self._cache = {key: (video, {})}  # keep a reference so the id stays valid
        props = self._cache[key][1]
        for group in {_GROUP[n] for n in want if n not in props}:
            props.update(_measure(video, self.alpha_range, group))
        return {n: props.get(n) for n in want}

    def __call__(self, frames, request):
        request = _check_request(request)
        video = request.video if request.video is not None else frames
        props = None
        out, decisions, pending = [], [], []
        for i, c in enumerate(request.criteria):
            hits = [(k, rx.search(c.description)) for k, rx in self.rules.items()]
            hits = [(k, m) for k, m in hits if m]
            names = [k for k, _ in hits]
            negated = {k: bool(_NEG.search(c.description[max(0, m.start() - 30):m.start()])) for k, m in hits}
            if not names:
                out.append(None)
                pending.append(i)
                decisions.append((c.key, None, None))
                continue
            props = self.properties(video, names)
            vals = [None if props.get(n) is None else bool(props[n]) != negated[n] for n in names]
            vals = [v for v in vals if v is not None]
            if not vals:
                out.append(0)
                decisions.append((c.key, names, None))
                continue
            bit = int(all(vals)) if c.positive else int(any(vals))
            out.append(bit)
            decisions.append((c.key, names, bit))
        if pending:
            if self.fallback is not None:
                from ._rubric import JudgeRequest, _normalise_verdicts

                sub = JudgeRequest(request.task, request.dimension, tuple(request.criteria[i] for i in pending),
                                   request.prompt, request.task_text, request.requirement, request.frame_indices,
                                   request.video)
                fb = _normalise_verdicts(self.fallback(frames, sub), sub.criteria, faithful=False,
                                         where=f"task {request.task.index} {request.dimension} (fallback)")
                fb = fb or [0] * len(pending)
            else:
                fb = [0] * len(pending)
            for i, b in zip(pending, fb):
                out[i] = int(b)
        self.last_decisions_ = decisions
        return out


_GROUP = {"frozen": "frames", "flicker": "frames", "teleport": "tracks", "ballistic": "tracks", "diffusive": "tracks",
          "confined": "tracks", "drift": "tracks", "no_drift": "tracks", "parabolic": "tracks", "plug": "tracks",
          "growth": "colony", "spreading": "field"}


def _measure(video, alpha_range, group):
    """Property name -> bool (None when it cannot be measured on this video) for one group of properties."""
    from ._analysis import analyse, fit_msd, physics_flags, velocity_profile
    from ._render import Video, as_frames

    frames = as_frames(video)
    T = frames.shape[0]
    props: dict = {k: None for k, g in _GROUP.items() if g == group}
    if T < 10:
        return props
    if group in ("frames", "tracks"):
        fl = physics_flags(video, alpha_range=alpha_range)
        props.update({"frozen": fl.frozen, "flicker": fl.flicker})
        if _extended_objects(frames, video):
            return props  # cells or blobs, not point-like spots: tracking-based properties are not measurable
        props["teleport"] = fl.teleport
        if fl.n_tracks >= 3 and np.isfinite(fl.alpha):
            props["ballistic"] = bool(fl.alpha > alpha_range[1])
            props["diffusive"] = bool(alpha_range[0] <= fl.alpha <= alpha_range[1] and not fl.teleport
                                      and not fl.frozen)
            props["confined"] = bool(fl.alpha < 0.5)
            px = video.pixel_size if isinstance(video, Video) else 1.0
            dt = video.dt if isinstance(video, Video) else 1.0
            tr = fl.tracks * px
            res = fit_msd(tr, dt, n_lags=4, n_boot=50)
            z = np.abs(res.drift) / np.maximum(res.drift_se, 1e-12)
            props["drift"] = bool(np.max(z) > 4)
            props["no_drift"] = bool(np.max(z) <= 4)
            prof = velocity_profile(tr, dt, n_bins=8)
            # parabolic: a good parabola fit with a clearly curved profile (max well above the edge velocity)
            curved = bool(np.isfinite(prof.u_max) and prof.u_max > 1.5 * max(float(np.min(prof.velocity)), 0.0) + 1e-9)
            props["parabolic"] = bool(prof.r_squared > 0.9 and curved)
            props["plug"] = not curved
    elif group == "colony":
        try:
            col = analyse(video, "colony")
            props["growth"] = bool(col.rate > 3 * col.rate_se and col.counts[-1] > col.counts[0])
        except InputError:
            pass
    else:
        try:
            fa = analyse(video, "field")
            v = fa.variance.mean(1)
            props["spreading"] = bool(v[-1] > 1.1 * v[0] and np.all(np.abs(np.diff(fa.mass)) / fa.mass[:-1] < 0.5))
        except InputError:
            pass
    return props


def _extended_objects(frames, video):
    """True when the first frame's bright objects are much larger than a PSF spot (cells, not particles)."""
    from scipy import ndimage

    from ._render import Video

    s = float(video.meta.get("psf_sigma", 1.5)) if isinstance(video, Video) else 1.5
    f = ndimage.gaussian_filter(frames[0], s)
    lo, hi = np.percentile(f, 5), f.max()
    if hi - lo <= 0:
        return False
    lab, k = ndimage.label(f > lo + 0.5 * (hi - lo))
    if k == 0:
        return False
    areas = np.bincount(lab.ravel())[1:]
    return bool(np.median(areas) > 4 * math.pi * (2 * s) ** 2)
