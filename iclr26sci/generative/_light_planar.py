r"""PlanarHOI: the spec's 2-D human-object interaction toy, with an exact physics rule and exact contact labels.

A planar figure (x forward, y up, metres) walks to a box, reaches it with a two-link arm, closes its gripper,
manipulates the box and releases it. Per frame three modality tokens:

- ``body`` (2): root x-position and trunk lean :math:`\alpha` (radians, forward positive); the hip is at height
  0.45 m, the shoulder at :math:`(x + 0.4\sin\alpha,\ 0.45 + 0.4\cos\alpha)`;
- ``hands`` (3): absolute shoulder angle :math:`\theta_1`, relative elbow angle :math:`\theta_2` of a 2-link arm
  (0.3 m + 0.3 m) and the gripper aperture :math:`g \in [0, 1]` (1 open);
- ``object`` (4): box centre (x, y) and :math:`(\cos\varphi, \sin\varphi)` of its angle. Its half sizes (w, h)
  are the condition (an :class:`HOIObject` box of depth 0.05 m: its BPS-lite shape code is the shape input).

Fingertip (forward kinematics): :math:`f = s + 0.3(\cos\theta_1, \sin\theta_1) + 0.3(\cos(\theta_1+\theta_2),
\sin(\theta_1+\theta_2))`.

Scripted policy with randomness (object start, sizes, phase timing, displacements): walk to the box, reach its
near side by inverse kinematics (the trunk leans so that the target is 0.4 m below and 0.25 m in front of the
shoulder), close the gripper, then one of four tasks (the captions): carry it to the left table, push it to the
right, lift and rotate it a quarter turn, carry it to the right table; place, release, retract. Physics rule: the
box moves **only** while the gripper is closed (g < 0.5) and the fingertip is within :data:`PLANAR_EPS` = 1 cm of
its surface; otherwise it rests. The contact label is this rule, applied to the generated arrays as well.

Everything here is synthetic (no motion capture): it is the exact-check companion of the composed mocap data.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_in_range, check_option, check_positive_int

from ._light_data import _check_pair, _contact_metrics, _SequenceSet
from ._light_objects import HOIObject

__all__ = ["PlanarHOISequences", "planar_hoi", "planar_fingertip", "planar_metrics", "planar_shape_augment",
           "PLANAR_TASKS", "PLANAR_DIMS", "PLANAR_EPS", "PLANAR_TOL"]

#: token sizes of the planar modalities
PLANAR_DIMS = {"body": 2, "hands": 3, "object": 4}
#: the tasks (captions)
PLANAR_TASKS = ("pick up the box and put it on the left table", "push the box to the right",
                "lift the box and rotate it", "pick up the box and put it on the right table")
#: physics rule: the box moves only with a closed gripper within this distance of its surface (metres)
PLANAR_EPS = 0.01
#: contact tolerance of the metrics (metres): 5% of the 0.6 m arm, fixed before any model was trained
PLANAR_TOL = 0.03
_HIP, _TORSO, _L1, _L2 = 0.45, 0.4, 0.3, 0.3
_REST = (-np.pi / 2 + 0.15, 0.3)
_DEPTH = 0.05
_SIZES = {"spectrum": ((0.05, 0.2), (0.05, 0.2)), "narrow": ((0.09, 0.11), (0.09, 0.11))}


def _smooth(s):
    s = np.clip(s, 0.0, 1.0)
    return s * s * (3 - 2 * s)


def _shoulder(body):
    x, a = body[..., 0], body[..., 1]
    return np.stack([x + _TORSO * np.sin(a), _HIP + _TORSO * np.cos(a)], -1)


def planar_fingertip(body, hands) -> np.ndarray:
    r"""Fingertip positions (..., 2) from body (..., 2) and hands (..., 3) tokens (forward kinematics).

    Examples
    --------
    >>> planar_fingertip(np.array([0.0, 0.0]), np.array([0.0, 0.0, 1.0])).round(3).tolist()
    [0.6, 0.85]
    """
    b = np.asarray(body, dtype=np.float64)
    h = np.asarray(hands, dtype=np.float64)
    if b.shape[-1] != 2 or h.shape[-1] != 3 or b.shape[:-1] != h.shape[:-1]:
        raise InputError("hands", f"got body {b.shape} and hands {h.shape}", "(..., 2) and (..., 3) arrays")
    for nm, a in (("body", b), ("hands", h)):
        if not np.all(np.isfinite(a)):
            raise InputError(nm, "contains NaN or infinite values", "finite tokens")
    s = _shoulder(b)
    t1, t2 = h[..., 0], h[..., 1]
    return s + np.stack([_L1 * np.cos(t1) + _L2 * np.cos(t1 + t2), _L1 * np.sin(t1) + _L2 * np.sin(t1 + t2)], -1)


def _ik(shoulder, target):
    d = target - shoulder
    r = np.clip(np.linalg.norm(d, axis=-1), 1e-3, 0.999 * (_L1 + _L2))
    t2 = np.arccos(np.clip((r ** 2 - _L1 ** 2 - _L2 ** 2) / (2 * _L1 * _L2), -1.0, 1.0))
    t1 = np.arctan2(d[..., 1], d[..., 0]) - np.arctan2(_L2 * np.sin(t2), _L1 + _L2 * np.cos(t2))
    return t1, t2


def _body_for(target):
    """Root x and lean that put the target 0.25 m in front of and (up to) 0.4 m below the shoulder."""
    c = np.clip((target[..., 1] + 0.4 - _HIP) / _TORSO, np.cos(1.3), 1.0)
    lean = np.arccos(c)
    return target[..., 0] - 0.25 - _TORSO * np.sin(lean), lean


def _box_sdf(p, half):
    q = np.abs(p) - half
    return np.linalg.norm(np.maximum(q, 0.0), axis=-1) + np.minimum(q.max(-1), 0.0)


def _surface_distance(body, hands, obj, sizes):
    """Signed fingertip-to-box-surface distance (N, T) (negative inside)."""
    f = planar_fingertip(body, hands)
    c = obj[..., :2]
    ang = np.arctan2(obj[..., 3], obj[..., 2])
    d = f - c
    cs, sn = np.cos(ang), np.sin(ang)
    local = np.stack([cs * d[..., 0] + sn * d[..., 1], -sn * d[..., 0] + cs * d[..., 1]], -1)
    return _box_sdf(local, np.asarray(sizes)[:, None, :])


@dataclass(repr=False)  # the shared short repr of _SequenceSet
class PlanarHOISequences(_SequenceSet):
    """PlanarHOI sequences: body, hands and object tokens, captions, box objects and contact labels.

    Attributes
    ----------
    body, hands, object : ndarray (N, T, 2), (N, T, 3), (N, T, 4)
    text : list of str
    objects : list of HOIObject
        Boxes with half sizes (w, h, 0.05); (w, h) are the planar half width and height.
    contact : ndarray (N, T) of bool
        The physics rule: gripper closed and fingertip within 1 cm of the surface.
    fps : float

    Examples
    --------
    >>> s = planar_hoi(n=10, rng=0).train
    >>> s
    PlanarHOISequences(8 sequences of 32 frames)
    """

    body: np.ndarray
    hands: np.ndarray
    object: np.ndarray
    text: list
    objects: list
    contact: np.ndarray
    fps: float = 10.0

    dims = PLANAR_DIMS

    @classmethod
    def from_arrays(cls, body, hands, object, text, objects, contact=None, fps=10.0):
        """Validate arrays (consistent counts, lengths and feature sizes) and build the set; ``contact`` defaults
        to the physics rule applied to the arrays (with the 1 cm tolerance)."""
        b = check_array(body, "body", ndim=3)
        h = check_array(hands, "hands", ndim=3)
        o = check_array(object, "object", ndim=3)
        for name, arr in (("body", b), ("hands", h), ("object", o)):
            if arr.shape[2] != PLANAR_DIMS[name]:
                raise InputError(name, f"has {arr.shape[2]} features per frame", f"{PLANAR_DIMS[name]} (PlanarHOI)")
        if not (b.shape[:2] == h.shape[:2] == o.shape[:2]):
            raise InputError("hands", f"sequence counts/lengths differ: body {b.shape[:2]}, hands {h.shape[:2]}, "
                             f"object {o.shape[:2]}", "the same (N, T) for body, hands and object")
        N, T = b.shape[:2]
        if N == 0 or T < 2:
            raise InputError("body", f"has shape {b.shape}", "at least one sequence of at least 2 frames")
        if isinstance(text, str) or len(text) != N or not all(isinstance(t, str) and t.strip() for t in text):
            raise InputError("text", "is not a list of non-empty captions, one per sequence", f"{N} captions")
        if len(objects) != N or not all(isinstance(x, HOIObject) and x.kind == "box" for x in objects):
            raise InputError("objects", f"has {len(objects)} entries", f"{N} HOIObject boxes")
        fps = check_in_range(fps, "fps", 0.0, None, low_open=True)
        out = cls(b, h, o, list(text), list(objects), np.zeros((N, T), bool), float(fps))
        from ._checks import check_flags

        out.contact = out.contacts(PLANAR_EPS) if contact is None else check_flags(contact, "contact", (N, T))
        return out

    def sizes(self) -> np.ndarray:
        """Planar half sizes (w, h) of every box, (N, 2)."""
        return np.array([o.dims[:2] for o in self.objects])

    def surface_distance(self) -> np.ndarray:
        """Signed fingertip-to-surface distance (N, T), metres (negative inside the box)."""
        return _surface_distance(self.body, self.hands, self.object, self.sizes())

    def contacts(self, tol=PLANAR_TOL) -> np.ndarray:
        """Contact rule with tolerance ``tol``: gripper closed (g < 0.5) and |distance to the surface| < ``tol``."""
        tol = check_in_range(tol, "tol", 0.0, None, low_open=True)
        return (self.hands[..., 2] < 0.5) & (np.abs(self.surface_distance()) < tol)

    def summary(self) -> str:
        """One line: counts, frames and the contact fraction."""
        return f"{len(self)} planar sequences x {self.T} frames at {self.fps:g} fps; contact on {self.contact.mean():.1%} of frames"


def _one(g, task, w, h, T):
    t = np.arange(T, dtype=np.float64)
    sc = T / 32.0
    tg = int(round(10 * sc)) + int(g.integers(-1, 2))          # gripper closed from here
    tp = int(round(22 * sc)) + int(g.integers(-1, 2))          # placed
    ta, tr = tg - int(round(4 * sc)), tp + 2                     # reach starts, released
    c0 = np.array([g.uniform(0.9, 1.3), h])
    dx = g.uniform(0.3, 0.5)
    lift = g.uniform(0.1, 0.2)
    table = g.uniform(0.2, 0.3)
    # object path while held (s in [0, 1]) and the grasp point in the object frame (-w, 0)
    s = _smooth((t - tg) / (tp - tg))
    if task == 0:
        c = c0 + np.stack([-dx * s, table * s + lift * np.sin(np.pi * s)], -1)
        phi = np.zeros(T)
    elif task == 1:
        c = c0 + np.stack([dx * s, 0 * s], -1)
        phi = np.zeros(T)
    elif task == 2:
        phi = -np.pi / 2 * s
        c = np.stack([c0[0] + g.uniform(-0.05, 0.05) * s, h + (w - h) * s + (lift + 0.1) * np.sin(np.pi * s)], -1)
    else:
        c = c0 + np.stack([dx * s, table * s + lift * np.sin(np.pi * s)], -1)
        phi = np.zeros(T)
    grasp = c + (-w) * np.stack([np.cos(phi), np.sin(phi)], -1)
    # body: walk to the stance, lean into the reach, then follow the fingertip
    root_g, lean_g = _body_for(grasp[tg])
    root, lean = _body_for(grasp)
    walk = _smooth(t / ta)
    reach = _smooth((t - ta) / max(tg - 2 - ta, 1))     # short sequences (T ~ 16) leave no frame to reach in
    pre = t < tg
    root = np.where(pre, root_g * np.where(t < ta, walk, 1.0), root)
    lean = np.where(pre, lean_g * np.where(t < ta, 0.0, reach), lean)
    body = np.stack([root, lean], -1)
    sh = _shoulder(body)
    rest = np.array(_REST)
    rest_tip = planar_fingertip(body[ta], np.array([*rest, 1.0]))
    target = np.where((t < tg - 2)[:, None], rest_tip + (grasp[tg] - rest_tip) * reach[:, None], grasp)
    t1, t2 = _ik(sh, target)
    ang = np.stack([t1, t2], -1)
    ang[t < ta] = rest
    # after release: retract the arm to rest and straighten up
    back = _smooth((t - tr) / (T - 1 - tr))[:, None]
    ang = np.where((t > tr)[:, None], ang[tr] + (rest - ang[tr]) * back, ang)
    body = np.where((t > tr)[:, None], body[tr] + (np.array([body[tr, 0] - 0.1, 0.0]) - body[tr]) * back, body)
    grip = np.interp(t, [0, tg - 2, tg, tp, tr, T], [1, 1, 0, 0, 1, 1])
    hands = np.concatenate([ang, grip[:, None]], -1)
    # the box rests outside [tg, tp]
    c = np.where((t < tg)[:, None], c[tg], np.where((t > tp)[:, None], c[tp], c))
    phi = np.where(t < tg, phi[tg], np.where(t > tp, phi[tp], phi))
    obj = np.concatenate([c, np.cos(phi)[:, None], np.sin(phi)[:, None]], -1)
    return body, hands, obj


def planar_hoi(n=3000, *, T=32, sizes="spectrum", tasks=None, test_fraction=0.2, rng=None):
    r"""PlanarHOI sequences (the spec's exact-rule toy): train/test split of :class:`PlanarHOISequences`.

    Parameters
    ----------
    n : int
        Number of sequences (train + test).
    T : int >= 16
        Frames per sequence (10 fps).
    sizes : {"spectrum", "narrow"} or ((w_lo, w_hi), (h_lo, h_hi))
        Box half-size ranges (metres): the shape spectrum (0.05-0.2 each, independently), near-cubes
        (0.09-0.11), or explicit ranges.
    tasks : sequence of int, optional
        Indices into :data:`PLANAR_TASKS` (default all four).
    test_fraction : float in (0, 1)
    rng : seed or Generator

    Returns
    -------
    HOIDataset
        With ``source="planar"``.

    Examples
    --------
    >>> d = planar_hoi(n=20, rng=0)
    >>> d.train.body.shape, d.train.hands.shape, d.train.object.shape
    ((16, 32, 2), (16, 32, 3), (16, 32, 4))
    """
    from ._light_data import HOIDataset

    n = check_positive_int(n, "n", minimum=2)
    T = check_positive_int(T, "T", minimum=16)
    rng_w, rng_h = _size_ranges(sizes)
    tasks = tuple(range(len(PLANAR_TASKS))) if tasks is None else tasks
    if isinstance(tasks, (str, int)) or not tasks or any(
            isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < len(PLANAR_TASKS) for k in tasks):
        raise InputError("tasks", f"got {tasks!r}", f"a non-empty sequence of task indices in [0, {len(PLANAR_TASKS)})")
    test_fraction = check_in_range(test_fraction, "test_fraction", 0.0, 1.0, low_open=True, high_open=True)
    g = as_generator(rng)
    B, H, O, texts, objs = [], [], [], [], []
    for _ in range(n):
        k = int(tasks[int(g.integers(len(tasks)))])
        w, h = g.uniform(*rng_w), g.uniform(*rng_h)
        b, hd, o = _one(g, k, w, h, T)
        B.append(b)
        H.append(hd)
        O.append(o)
        texts.append(PLANAR_TASKS[k])
        objs.append(HOIObject("box", (w, h, _DEPTH)))
    full = PlanarHOISequences(np.stack(B), np.stack(H), np.stack(O), texts, objs, np.zeros((n, T), bool), 10.0)
    if not all(np.all(np.isfinite(a)) for a in (full.body, full.hands, full.object)):   # never hand out NaN motion
        raise InputError("T", f"gave non-finite motion at T = {T}", "a sequence length whose phases fit (T >= 16)")
    full.contact = full.contacts(PLANAR_EPS)
    n_test = max(1, int(round(test_fraction * n)))
    perm = g.permutation(n)
    return HOIDataset(full.subset(np.sort(perm[n_test:])), full.subset(np.sort(perm[:n_test])), "planar")


def _size_ranges(sizes):
    if isinstance(sizes, str):
        return _SIZES[check_option(sizes, "sizes", tuple(_SIZES))]
    arr = check_array(sizes, "sizes", ndim=2, shape=(2, 2))
    if np.any(arr <= 0) or np.any(arr[:, 1] < arr[:, 0]) or np.any(arr > 0.3):
        raise InputError("sizes", f"got {arr.tolist()}", "((w_lo, w_hi), (h_lo, h_hi)) with 0 < lo <= hi <= 0.3 m")
    return arr


def _to_box_surface(p, half):
    """Nearest point of the boundary of the box [-half, half] to each point p (n, 2)."""
    q = np.clip(p, -half, half)
    inside = np.all(np.abs(p) < half, axis=-1)
    if np.any(inside):                              # push interior points out through the nearest face
        pi = p[inside]
        hi = np.broadcast_to(half, p.shape)[inside]
        gap = hi - np.abs(pi)
        ax = np.argmin(gap, axis=-1)
        rows = np.arange(len(pi))
        pi = pi.copy()
        pi[rows, ax] = np.where(pi[rows, ax] < 0, -1.0, 1.0) * hi[rows, ax]
        q[inside] = pi
    return q


def planar_shape_augment(seqs, *, sizes="spectrum", p=0.5, rng=None) -> PlanarHOISequences:
    r"""Contact-preserving shape augmentation of PlanarHOI training sequences (the miniature of LIGHT's
    shape-spectrum augmentation).

    Each sequence, with probability ``p``, gets a new box whose half sizes are drawn from ``sizes``; the human
    motion is kept and the new box is placed so that the original hand-object contact point stays in contact:

    1. contact point: the fingertip in the old box's frame, averaged over the sequence's contact frames,
       :math:`\bar p = \frac{1}{|C|}\sum_{t\in C} R(\varphi_t)^\top (f_t - c_t)` (the least-squares grasp point);
    2. correspondence: the box-to-box surface map :math:`p' = \bar p \odot (w'/w,\ h'/h)` followed by the
       nearest-surface projection onto the new box (a side point stays on the same side, at the same relative
       height);
    3. placement: the new centre :math:`c'_t = c_t + R(\varphi_t)(\bar p - p')` on every frame, so the new contact
       point occupies the world position of the old one and the fingertip-surface distance on contact frames is
       unchanged; the rotation is kept.

    Contact labels are recomputed with the physics rule. Sequences without a contact frame are left unchanged.
    As in the paper, only the contact points are preserved: a box that rests on the ground before the grasp may
    float above it or sink into it after the size change (the metrics do not score ground contact).

    Parameters
    ----------
    seqs : PlanarHOISequences
        Training sequences (an ``HOIDataset``'s ``train``).
    sizes : {"spectrum", "narrow"} or ((w_lo, w_hi), (h_lo, h_hi))
        Ranges of the new half sizes, as in :func:`planar_hoi`.
    p : float in [0, 1]
        Probability that a sequence's box is replaced (0 returns an unchanged copy).
    rng : seed or Generator

    Returns
    -------
    PlanarHOISequences
        The same number of sequences, captions and human motion; new boxes and object tracks where replaced.

    References
    ----------
    Wang et al., LIGHT: Unleashing Guidance Without Classifiers for Human-Object Interaction Animation,
    ICLR 2026 (arXiv:2603.25734): contact-aware shape-spectrum augmentation (objects replaced within a category,
    placement optimised so that the human-object contact points stay in contact).

    Examples
    --------
    >>> base = planar_hoi(n=20, sizes="narrow", rng=0).train
    >>> aug = planar_shape_augment(base, p=1.0, rng=1)
    >>> bool((aug.sizes() != base.sizes()).any(1).all())          # every box replaced
    True
    >>> bool(np.allclose(aug.body, base.body) and np.allclose(aug.hands, base.hands))   # human motion kept
    True
    >>> d = np.abs(aug.surface_distance())[base.contact]           # fingertip still on the surface
    >>> bool(d.max() < 0.01)
    True
    """
    if not isinstance(seqs, PlanarHOISequences):
        raise InputError("seqs", f"got {type(seqs).__name__}", "PlanarHOISequences (e.g. planar_hoi(...).train)")
    rng_w, rng_h = _size_ranges(sizes)
    p = check_in_range(p, "p", 0.0, 1.0)
    g = as_generator(rng)
    N = len(seqs)
    draw = g.random(N) < p
    new_sizes = np.stack([g.uniform(*rng_w, size=N), g.uniform(*rng_h, size=N)], -1)
    old = seqs.sizes()
    obj = seqs.object.copy()
    objects = list(seqs.objects)
    tip = planar_fingertip(seqs.body, seqs.hands)
    ang = np.arctan2(seqs.object[..., 3], seqs.object[..., 2])
    cs, sn = np.cos(ang), np.sin(ang)
    d = tip - seqs.object[..., :2]
    local = np.stack([cs * d[..., 0] + sn * d[..., 1], -sn * d[..., 0] + cs * d[..., 1]], -1)   # R^T (f - c)
    for i in np.flatnonzero(draw):
        con = seqs.contact[i]
        if not con.any():
            continue
        pbar = local[i][con].mean(0)
        pnew = _to_box_surface((pbar * new_sizes[i] / old[i])[None], new_sizes[i])[0]
        shift = pbar - pnew                                           # in the object frame
        obj[i, :, 0] += cs[i] * shift[0] - sn[i] * shift[1]
        obj[i, :, 1] += sn[i] * shift[0] + cs[i] * shift[1]
        objects[i] = HOIObject("box", (float(new_sizes[i, 0]), float(new_sizes[i, 1]), _DEPTH))
    return PlanarHOISequences.from_arrays(seqs.body, seqs.hands, obj, seqs.text, objects, fps=seqs.fps)


def _features(seqs):
    d = np.clip(seqs.surface_distance(), -0.3, 0.3)
    disp = seqs.object[..., :2] - seqs.object[:, :1, :2]
    root = seqs.body[..., 0] - seqs.body[:, :1, 0]
    return np.concatenate([d[:, ::2], disp[:, ::2, 0], disp[:, ::2, 1], root[:, ::2], seqs.hands[:, ::2, 2]], 1)


def planar_metrics(gen, ref, *, tol=PLANAR_TOL) -> dict:
    r"""Interaction metrics of generated PlanarHOI sequences against references (same captions and boxes).

    - contact precision / recall / F1: generated contact frames (gripper closed and fingertip within ``tol`` of the
      surface) vs the references' physics-rule labels, pooled;
    - penetration: share of frames with the fingertip more than 1 cm inside the box;
    - floating: share of frame steps where the box moves (> 5 mm) without generated contact at either end;
    - FID: Frechet distance of per-sequence features (fingertip-surface distance curve, box displacement, root
      displacement, gripper; every second frame); diversity: mean feature distance of random pairs.

    Returns the floats and ``per_sequence`` (N, 3) counts (true positives, generated, reference contacts).

    Examples
    --------
    >>> d = planar_hoi(n=20, rng=0)
    >>> m = planar_metrics(d.test, d.test)
    >>> round(m["contact_f1"], 3), round(m["floating"], 3)
    (1.0, 0.0)
    """
    _check_pair(gen, ref, PlanarHOISequences)
    tol = check_in_range(tol, "tol", 0.0, None, low_open=True)
    dist = gen.surface_distance()
    pred = (gen.hands[..., 2] < 0.5) & (np.abs(dist) < tol)
    moving = np.linalg.norm(np.diff(gen.object[..., :2], axis=1), axis=-1) > 0.005
    return _contact_metrics(pred, ref.contact, moving, float((dist < -0.01).mean()), _features(gen), _features(ref))
