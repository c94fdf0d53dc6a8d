"""Tests of the PlanarHOI toy of iclr26sci.generative.light: physics rule, kinematics, metrics, LIGHT on it, bad input."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.generative.light import (LIGHT, PLANAR_TASKS, HOIObject, PaceGuidance, PlanarHOISequences, hoi_dataset,
                                        planar_fingertip, planar_hoi, planar_metrics,
                                        planar_shape_augment)
from iclr26sci.generative._light_planar import _ik, _shoulder


BAD_INPUT_EXEMPT = {"generative.PLANAR_TASKS": "a constant tuple of the four PlanarHOI captions"}


@pytest.fixture(scope="module")
def planar():
    return planar_hoi(n=60, rng=0)


def test_planar_physics_rule_and_labels(planar):
    s = planar.train
    assert s.body.shape[1:] == (32, 2) and s.hands.shape[1:] == (32, 3) and s.object.shape[1:] == (32, 4)
    moved = np.linalg.norm(np.diff(s.object[..., :2], axis=1), axis=-1) > 1e-12
    # the box moves only while in contact (closed gripper within 1 cm of the surface), at both ends of the step
    assert not np.any(moved & ~s.contact[:, :-1]) and not np.any(moved & ~s.contact[:, 1:])
    d = s.surface_distance()
    assert np.abs(d[s.contact]).max() < 1e-9            # the fingertip sits on the surface while holding
    assert np.all(s.hands[..., 2][s.contact] < 0.5)
    n = s.contact.sum(1)
    assert n.min() >= 8 and n.max() <= 18 and not s.contact[:, 0].any()
    assert set(s.text) <= set(PLANAR_TASKS) and len(set(s.text)) == 4
    np.testing.assert_allclose(np.linalg.norm(s.object[..., 2:], axis=-1), 1.0)


def test_planar_tasks_move_the_box_as_captioned():
    d = planar_hoi(n=40, tasks=(1,), rng=1).train                    # push right: along the ground
    disp = d.object[:, -1, :2] - d.object[:, 0, :2]
    assert np.all(disp[:, 0] > 0.29) and np.allclose(disp[:, 1], 0.0)
    r = planar_hoi(n=40, tasks=(2,), rng=1).train                    # lift and rotate: a quarter turn
    np.testing.assert_allclose(np.arctan2(r.object[:, -1, 3], r.object[:, -1, 2]), -np.pi / 2, atol=1e-9)
    left = planar_hoi(n=40, tasks=(0,), rng=1).train
    assert np.all(left.object[:, -1, 0] < left.object[:, 0, 0] - 0.29)


def test_ik_inverts_forward_kinematics():
    g = np.random.default_rng(0)
    body = np.stack([g.uniform(-1, 1, 50), g.uniform(0, 1.2, 50)], -1)
    target = _shoulder(body) + g.uniform(0.1, 0.4, (50, 2)) * np.array([1, -1])
    t1, t2 = _ik(_shoulder(body), target)
    tip = planar_fingertip(body, np.stack([t1, t2, np.ones(50)], -1))
    np.testing.assert_allclose(tip, target, atol=1e-9)


def test_planar_metrics(planar):
    t = planar.test
    m = planar_metrics(t, t)
    assert m["contact_f1"] == 1.0 and m["floating"] == 0.0 and m["fid"] < 1e-6
    shifted = PlanarHOISequences(t.body, t.hands, t.object + np.array([0.1, 0, 0, 0]), t.text, t.objects, t.contact)
    m2 = planar_metrics(shifted, t)
    assert m2["contact_recall"] < 0.05 and m2["floating"] > 0.2
    assert m2["per_sequence"].shape == (len(t), 3)


def test_planar_sizes_spectrum_and_narrow():
    a = planar_hoi(n=40, sizes="narrow", rng=0).train.sizes()
    b = planar_hoi(n=40, sizes=((0.15, 0.2), (0.05, 0.06)), rng=0).train.sizes()
    assert np.all((a >= 0.09) & (a <= 0.11))
    assert np.all(b[:, 0] >= 0.15) and np.all(b[:, 1] <= 0.06)


def test_light_on_planar(planar):
    m = LIGHT(d_model=16, n_layers=1, n_heads=2, K=20, steps=8, text_encoder="bag-of-words", dropout=0.0,
              batch_size=16, rng=0).fit(planar, epochs=1)
    box = HOIObject("box", (0.1, 0.1, 0.05))
    s = m.sample(PLANAR_TASKS[1], box, guidance=PaceGuidance(("body", "hands"), delta=2, weight=3.0, upstop=4),
                 n=3, rng=0)
    assert isinstance(s, PlanarHOISequences) and s.body.shape == (3, 32, 2)
    ev = m.evaluate(planar.test, rng=0, n_boot=20)
    assert 0.0 <= ev.metrics["contact_f1"] <= 1.0 and ev.counts.shape == (len(planar.test), 3)
    with pytest.raises(InputError, match="test"):
        m.evaluate(hoi_dataset("mocap", n=10, T=32, fps=30, rng=0).test)
    merged = LIGHT(d_model=16, n_layers=1, n_heads=2, K=20, steps=8, text_encoder="bag-of-words",
                   modalities=("body+hands+object",), rng=0).fit(planar, epochs=1)
    assert merged.sample(PLANAR_TASKS[0], box, rng=0).object.shape == (1, 32, 4)


@pytest.mark.bad_input("generative.planar_hoi")
def test_bad_planar_hoi():
    for kw, name in ((dict(n=1), "n"), (dict(T=8), "T"), (dict(sizes="huge"), "sizes"),
                     (dict(sizes=((0.2, 0.1), (0.1, 0.1))), "sizes"), (dict(sizes=((0.1, 0.5), (0.1, 0.1))), "sizes"),
                     (dict(tasks=(7,)), "tasks"), (dict(tasks=()), "tasks"), (dict(tasks="push"), "tasks"),
                     (dict(test_fraction=1.0), "test_fraction")):
        with pytest.raises(InputError, match=name):
            planar_hoi(**kw)


@pytest.mark.bad_input("generative.PlanarHOISequences")
def test_bad_planar_sequences(planar):
    t = planar.test
    with pytest.raises(InputError, match="hands"):
        PlanarHOISequences.from_arrays(t.body, t.hands[:, :10], t.object, t.text, t.objects)
    with pytest.raises(InputError, match="body"):
        PlanarHOISequences.from_arrays(np.zeros((len(t), 32, 3)), t.hands, t.object, t.text, t.objects)
    with pytest.raises(InputError, match="text"):
        PlanarHOISequences.from_arrays(t.body, t.hands, t.object, [""] * len(t), t.objects)
    with pytest.raises(InputError, match="objects"):
        PlanarHOISequences.from_arrays(t.body, t.hands, t.object, t.text, [HOIObject("cylinder", (0.1, 0.1))] * len(t))
    with pytest.raises(InputError, match="contact"):
        PlanarHOISequences.from_arrays(t.body, t.hands, t.object, t.text, t.objects, contact=np.zeros(3, bool))
    s = PlanarHOISequences.from_arrays(t.body, t.hands, t.object, t.text, t.objects)
    np.testing.assert_array_equal(s.contact, t.contact)


@pytest.mark.bad_input("generative.planar_metrics", "generative.planar_fingertip")
def test_bad_planar_metrics_and_kinematics(planar):
    t = planar.test
    with pytest.raises(InputError, match="gen"):
        planar_metrics(t, t.subset([0, 1]))
    with pytest.raises(InputError, match="gen"):
        planar_metrics(t.body, t)
    with pytest.raises(InputError, match="tol"):
        planar_metrics(t, t, tol=0.0)
    with pytest.raises(InputError, match="hands"):
        planar_fingertip(np.zeros((4, 2)), np.zeros((4, 2)))


# ------------------------------------------------------------------------------------------- shape augmentation
def test_shape_augment_keeps_motion_and_contact(planar):
    base = planar_hoi(n=80, sizes="narrow", rng=3).train
    aug = planar_shape_augment(base, sizes="spectrum", p=0.5, rng=1)
    changed = (aug.sizes() != base.sizes()).any(1)
    assert 0.25 < changed.mean() < 0.75                              # about half replaced
    w, h = aug.sizes()[changed].T
    assert w.min() >= 0.05 and w.max() <= 0.2 and h.min() >= 0.05 and h.max() <= 0.2
    assert (np.abs(aug.sizes()[changed] - 0.1) > 0.01).any()         # outside the near-cube band
    np.testing.assert_array_equal(aug.body, base.body)                # the human motion is untouched
    np.testing.assert_array_equal(aug.hands, base.hands)
    assert aug.text == base.text
    np.testing.assert_array_equal(aug.contact, base.contact)          # contact frames preserved exactly
    assert np.abs(aug.surface_distance()[base.contact]).max() < 1e-9  # the fingertip stays on the new surface
    assert (aug.surface_distance() > -0.01).all()                     # no penetration introduced
    moved = np.linalg.norm(np.diff(aug.object[..., :2], axis=1), axis=-1) > 1e-12
    assert not np.any(moved & ~aug.contact[:, :-1])                   # the physics rule still holds
    np.testing.assert_array_equal(aug.object[~changed], base.object[~changed])
    assert not np.allclose(aug.object[changed], base.object[changed])
    again = planar_shape_augment(base, sizes="spectrum", p=0.5, rng=1)
    np.testing.assert_array_equal(again.object, aug.object)           # deterministic in rng


def test_shape_augment_p0_is_identity_and_rotation_task_keeps_contact():
    base = planar_hoi(n=30, sizes="narrow", tasks=(2,), rng=4).train  # lift and rotate a quarter turn
    same = planar_shape_augment(base, p=0.0, rng=0)
    np.testing.assert_array_equal(same.object, base.object)
    assert [o.dims for o in same.objects] == [o.dims for o in base.objects]
    aug = planar_shape_augment(base, p=1.0, rng=0)
    assert np.abs(aug.surface_distance()[base.contact]).max() < 1e-9
    np.testing.assert_array_equal(aug.contact, base.contact)


@pytest.mark.bad_input("generative.planar_shape_augment")
def test_shape_augment_bad_input(planar):
    s = planar.train
    for kw, arg in ((dict(p=1.5), "p"), (dict(p=-0.1), "p"), (dict(sizes=((0.2, 0.1), (0.1, 0.2))), "sizes"),
                    (dict(sizes="huge"), "sizes"), (dict(rng="x"), "rng")):
        with pytest.raises(InputError, match=arg):
            planar_shape_augment(s, **kw)
    with pytest.raises(InputError, match="seqs"):
        planar_shape_augment(planar, p=0.5)                           # the dataset, not its train split
