"""BodyModel stand-in: kinematic tree, differentiability, shape/pose semantics, bad input."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.geom._body import SMPL_PARENTS, BodyModel

BAD_INPUT_EXEMPT = {
    "geom.BodyOutput": "a result container built by BodyModel.forward",
    "geom.SMPL_PARENTS": "a constant (SMPL's kinematic-tree topology)",
    "geom.SMPL_JOINT_NAMES": "a constant (joint names)",
}


@pytest.fixture(scope="module")
def body():
    return BodyModel("standin", dtype=torch.float64)


def test_rest_pose_joints_are_composed_offsets(body):
    beta = torch.tensor([[0.5, -1.0, 0.7, 0.3]], dtype=torch.float64)
    out = body(shape=beta)
    off = body.bone_offsets(beta)[0]
    J = out.joints[0]
    for j in range(1, 24):
        torch.testing.assert_close(J[j] - J[SMPL_PARENTS[j]], off[j])
    assert out.vertices.shape == (1, len(body.skin_joint), 3) and body.faces.max() < out.vertices.shape[1]


def test_fk_rotation_moves_only_descendants(body):
    pose = torch.zeros(1, 24, 3, dtype=torch.float64)
    pose[0, 18] = torch.tensor([0.0, 0.0, 1.0])   # bend the left elbow
    a, b = body(), body(pose)
    moved = (a.joints - b.joints).norm(dim=-1)[0] > 1e-9
    assert moved.nonzero().flatten().tolist() == [20, 22]
    # bone lengths are preserved by any pose
    P = torch.randn(3, 72, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    out = body(P)
    par = list(SMPL_PARENTS[1:])
    rest = body().joints
    torch.testing.assert_close((out.joints[:, 1:] - out.joints[:, par]).norm(dim=-1),
                               (rest[:, 1:] - rest[:, par]).norm(dim=-1).expand(3, -1))


def test_translation_and_global_orient(body):
    t = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64)
    torch.testing.assert_close(body(translation=t).vertices, body().vertices + t[:, None])
    pose = torch.zeros(1, 72, dtype=torch.float64)
    pose[0, 1] = np.pi    # 180 degrees about y
    out = body(pose)
    torch.testing.assert_close(out.joints[0, :, 0], -body().joints[0, :, 0], atol=1e-12, rtol=0)


def test_gradients_flow_to_pose_shape_translation(body):
    pose = (0.1 * torch.randn(2, 72, dtype=torch.float64, generator=torch.Generator().manual_seed(1))).requires_grad_()
    shape = torch.zeros(2, 4, dtype=torch.float64, requires_grad=True)
    tr = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    out = body(pose, shape, tr)
    (out.vertices.square().sum() + out.joints.sum()).backward()
    assert all(torch.isfinite(g).all() and g.abs().sum() > 0 for g in (pose.grad, shape.grad, tr.grad))


def test_girth_changes_vertices_not_joints(body):
    b = torch.tensor([[0.0, 0.0, 0.0, 1.0]], dtype=torch.float64)
    torch.testing.assert_close(body(shape=b).joints, body().joints)
    assert (body(shape=b).vertices - body().vertices).abs().max() > 1e-3


def test_contact_vertices_are_lowest(body):
    V = body().vertices[0].numpy()
    assert len(body.contact_vertices) > 0
    assert V[body.contact_vertices, 1].max() <= V[:, 1].min() + 0.02


def test_anny_backend_missing_or_present_is_clear():
    try:
        import anny  # noqa: F401
    except Exception:
        with pytest.raises(ImportError, match="pip install anny"):
            BodyModel("anny")


@pytest.mark.bad_input("geom.BodyModel")
@pytest.mark.parametrize("kw, arg", [
    (dict(kind="smpl"), "kind"), (dict(stature=-1.0), "stature"), (dict(n_around=2), "n_around"),
    (dict(dtype=torch.int64), "dtype"),
])
def test_body_constructor_bad_input(kw, arg):
    with pytest.raises(InputError, match=arg):
        BodyModel(**kw)


@pytest.mark.bad_input("geom.BodyModel")
def test_body_forward_bad_input(body):
    with pytest.raises(InputError, match="pose"):
        body(torch.zeros(1, 69))                       # SMPL body_pose without the global orientation
    with pytest.raises(InputError, match="pose"):
        body(torch.zeros(1, 23, 3))
    with pytest.raises(InputError, match="shape"):
        body(torch.zeros(1, 72), torch.zeros(1, 10))
    with pytest.raises(InputError, match="translation"):
        body(torch.zeros(2, 72), translation=torch.zeros(2, 2))
    with pytest.raises(InputError, match="pose"):
        body(torch.full((1, 72), float("nan")))
    with pytest.raises(InputError, match="shape"):
        body.bone_offsets(torch.zeros(1, 3))


@pytest.mark.slow
def test_anny_backend_forward_and_bad_pose():
    pytest.importorskip("anny")
    body = BodyModel("anny")
    pose = torch.zeros(1, body.n_pose, requires_grad=True)
    out = body(pose, torch.full((1, body.n_shape), 0.5))
    assert out.joints.shape == (1, len(body.parents), 3) and out.vertices.shape[1] == body.faces.max() + 1
    height = float(out.vertices[0, :, 2].max() - out.vertices[0, :, 2].min())   # anny is z-up
    assert 1.4 < height < 1.9
    out.vertices.sum().backward()
    assert torch.isfinite(pose.grad).all()
    with pytest.raises(InputError, match="pose"):
        body(torch.zeros(1, 72))
