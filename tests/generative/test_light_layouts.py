"""LIGHT on user skeletons: SMPL body / SMPL / SMPL-H / SMPL-X joint positions (synthetic arrays), layouts and
their bad input."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.generative.light import (BODY_LAYOUTS, LIGHT, BodyLayout, HOIObject, HOISequences, body_layout,
                                        hoi_dataset, hoi_metrics, split_joints)

BAD_INPUT_EXEMPT = {"generative.BODY_LAYOUTS": "a constant dict of the named body layouts"}


def _smpl_like(n_joints, N=12, T=8, seed=0):
    """Synthetic whole-skeleton sequences: a rest pose (y up) walking forward with jitter; from frame T/4 to 3T/4
    a box rides 4 cm beyond the right hand's last joint (its middle finger tip for SMPL-H/X), so that hand joint
    is in contact while the wrist is farther away."""
    g = np.random.default_rng(seed)
    lay = body_layout(n_joints=n_joints)
    rest = g.normal(0, 0.25, (n_joints, 3)) + np.array([0, 1.0, 0])
    J = np.empty((N, T, n_joints, 3))
    obj = np.zeros((N, T, 9))
    obj[..., 3], obj[..., 7] = 1.0, 1.0                    # identity rotation (rot6d = first two columns)
    tip = lay.hand_joints[-1]
    box = HOIObject("box", (0.04, 0.04, 0.04))
    for i in range(N):
        J[i] = rest + np.linspace(0, 0.5, T)[:, None, None] * np.array([1.0, 0, 0]) + g.normal(0, 0.01, (T, n_joints, 3))
        a, b = T // 4, 3 * T // 4
        c = J[i, :, tip] + np.array([0.0, 0.0, 0.08])
        c[:a], c[b + 1:] = c[a], c[b]
        obj[i, :, :3] = c
    text = [f"carry the box with skeleton {n_joints}"] * N
    return J, obj, text, [box] * N


@pytest.mark.parametrize("n_joints,name,dims", [(22, "smpl_body", (60, 6)), (24, "smpl", (60, 12)),
                                                (52, "smplh", (60, 96)), (55, "smplx", (69, 96)),
                                                (15, "deepmimic", (39, 6))])
def test_layout_inferred_from_joint_count(n_joints, name, dims):
    J, obj, text, objs = _smpl_like(n_joints, N=3)
    for arr in (J, J.reshape(3, 8, -1)):                         # (N, T, J, 3) and flat (N, T, 3 J)
        s = HOISequences.from_joints(arr, obj, text, objs)
        assert s.layout.name == name and s.n_joints == n_joints
        assert (s.dims["body"], s.dims["hands"]) == dims
        if name != "deepmimic":                                  # (DeepMimic joints() uses the geom body order)
            np.testing.assert_array_equal(s.joints(), J)         # split and merge are inverse
        # the flat two-token form of the same data infers the same layout
        again = HOISequences.from_arrays(s.body, s.hands, s.object, text, objs)
        assert again.layout == s.layout


def test_smplh_66_and_156():
    """The issue's case: a 66-d SMPL body and a 156-d SMPL-H body are accepted, with the hands where present."""
    J, obj, text, objs = _smpl_like(52, N=2)
    s = HOISequences.from_joints(J.reshape(2, 8, 156), obj, text, objs)
    assert s.layout.name == "smplh" and s.hands.shape == (2, 8, 96)
    # the hand token holds the wrists (20, 21) then the 30 finger joints, skeleton order
    np.testing.assert_array_equal(s.hands[0, 0, :6], J[0, 0, [20, 21]].ravel())
    np.testing.assert_array_equal(s.hands[0, 0, 6:], J[0, 0, 22:52].ravel())
    body66 = J[:, :, :22].reshape(2, 8, 66)
    s22 = HOISequences.from_joints(body66, obj, text, objs)
    assert s22.layout.name == "smpl_body" and s22.body.shape == (2, 8, 60) and s22.hands.shape == (2, 8, 6)


def test_contact_uses_finger_joints():
    """Contact is measured on every hand joint: the box touches the SMPL-H middle-finger tip, not the wrist."""
    J, obj, text, objs = _smpl_like(52, N=4)
    s = HOISequences.from_joints(J, obj, text, objs)
    T = s.T
    assert s.contact[:, T // 4:3 * T // 4 + 1].all()
    # with the wrists alone (the SMPL body layout on the first 22 joints) the box is out of reach
    wrists_only = HOISequences.from_joints(J[:, :, :22], obj, text, objs)
    assert s.contact.sum() > wrists_only.contact.sum()


def test_light_fits_and_samples_smplh():
    J, obj, text, objs = _smpl_like(52, N=12)
    s = HOISequences.from_joints(J, obj, text, objs)
    m = LIGHT(d_model=16, n_layers=1, n_heads=2, K=20, steps=6, text_encoder="bag-of-words", dropout=0.0,
              batch_size=6, rng=0).fit(s, epochs=2)
    assert m.n_joints_ == 52 and m.layout_.name == "smplh"
    assert m.model_.token_dims == (60, 96, 9)
    out = m.sample(text[0], objs[0], n=2, rng=0)
    assert out.layout == m.layout_ and out.joints().shape == (2, 8, 52, 3)
    ev = m.evaluate(s.subset(range(4)), rng=0, n_boot=20)
    assert 0.0 <= ev.metrics["contact_f1"] <= 1.0 and np.isfinite(ev.metrics["fid"])
    # a test set of another skeleton is refused before sampling
    other = HOISequences.from_joints(_smpl_like(55, N=4)[0], obj[:4], text[:4], objs[:4])
    with pytest.raises(InputError, match="layout"):
        m.evaluate(other)
    with pytest.raises(InputError, match="layout"):
        hoi_metrics(other, s.subset(range(4)))


def test_deepmimic_unchanged():
    """The DeepMimic data keeps its layout, sizes and joint order (and so its cache keys)."""
    d = hoi_dataset("mocap", n=6, T=8, fps=10, rng=0)
    assert d.train.layout == BODY_LAYOUTS["deepmimic"] and d.train.dims == {"body": 39, "hands": 6, "object": 9}
    assert d.train.joints().shape == (len(d.train), 8, 15, 3)
    assert d.train.to_dict()["layout"]["name"] == "deepmimic"


def test_custom_layout():
    lay = BodyLayout("arm", ("root", "shoulder", "elbow", "wrist", "finger"), hand_joints=(3, 4), root=0)
    J, obj, text, objs = _smpl_like(52, N=2)
    arm = J[:, :, [0, 17, 19, 21, 51]]
    s = HOISequences.from_joints(arm, obj, text, objs, layout=lay)
    assert s.dims["body"] == 9 and s.dims["hands"] == 6
    with pytest.raises(InputError, match="body"):          # the widths match no named layout
        HOISequences.from_arrays(s.body, s.hands, obj, text, objs)
    assert HOISequences.from_arrays(s.body, s.hands, obj, text, objs, layout=lay).layout == lay


@pytest.mark.bad_input("generative.split_joints", "generative.body_layout", "generative.BodyLayout",
                       "generative.HOISequences")
def test_bad_layouts():
    J, obj, text, objs = _smpl_like(52, N=2)
    with pytest.raises(InputError, match="ambiguous"):         # (T, J, 3) without the sequence axis
        split_joints(J[0])
    with pytest.raises(InputError, match="multiple of 3"):
        split_joints(np.zeros((2, 8, 155)))
    with pytest.raises(InputError, match="53 joints"):        # no named layout has 53 joints
        split_joints(np.zeros((2, 8, 53, 3)))
    with pytest.raises(InputError, match="joints"):
        split_joints(np.zeros((2, 8, 52, 2)))
    with pytest.raises(InputError, match="joints"):
        split_joints(np.full((2, 8, 156), np.nan))
    with pytest.raises(InputError, match="has 52 joints but layout 'smplx'"):
        split_joints(J, "smplx")
    with pytest.raises(InputError, match="layout"):
        body_layout("smpl-h")
    with pytest.raises(InputError, match="layout"):
        body_layout(52)
    with pytest.raises(InputError, match="layout"):
        body_layout()
    with pytest.raises(InputError, match="hand_joints"):
        BodyLayout("x", ("a", "b"), hand_joints=(0, 1))
    with pytest.raises(InputError, match="hand_joints"):
        BodyLayout("x", ("a", "b"), hand_joints=(2,))
    with pytest.raises(InputError, match="joints"):
        BodyLayout("x", ("a", "a"), hand_joints=(1,))
    with pytest.raises(InputError, match="root"):
        BodyLayout("x", ("a", "b"), hand_joints=(1,), root=1)
    with pytest.raises(InputError, match="hands"):            # SMPL-H body with DeepMimic-sized hands
        HOISequences.from_arrays(np.zeros((2, 8, 60)), np.zeros((2, 8, 6)), obj, text, objs, layout="smplh")
