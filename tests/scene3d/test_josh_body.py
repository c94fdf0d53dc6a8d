"""JOSH's body-model interface: SMPL files through smplx (checked against a numpy LBS), built-ins, JOSH on SMPL inputs.

The SMPL model files are synthetic and written here in SMPL's layout (v_template, shapedirs, posedirs, J_regressor,
weights, kintree_table, f): a random skinned blob on SMPL's 24-joint tree, not a body.
"""
from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.geom import SMPL_PARENTS
from iclr26sci.scene3d import josh as J
from iclr26sci.scene3d import _josh_body as B
from iclr26sci.scene3d import _josh_opt as O

pytest.importorskip("smplx")

NV, NB, NJ = 240, 10, 24


def _smpl_arrays(seed=0, n_vertices=NV, n_betas=NB):
    """Random arrays in SMPL's layout: joints along the tree, vertices around them, valid regressor and weights."""
    g = np.random.default_rng(seed)
    joints = np.zeros((NJ, 3))
    for j in range(1, NJ):
        joints[j] = joints[SMPL_PARENTS[j]] + g.normal(0, 0.12, 3)
    owner = g.integers(0, NJ, n_vertices)
    owner[:NJ] = np.arange(NJ)                                           # every joint owns a vertex
    vt = joints[owner] + g.normal(0, 0.03, (n_vertices, 3))
    jr = np.zeros((NJ, n_vertices))
    for j in range(NJ):
        mine = np.nonzero(owner == j)[0]
        jr[j, mine] = g.dirichlet(np.ones(len(mine)))                    # rows sum to 1
    w = np.zeros((n_vertices, NJ))
    for v in range(n_vertices):
        j = owner[v]
        p = SMPL_PARENTS[j] if j > 0 else j
        a = g.uniform(0.5, 1.0)
        w[v, j] += a
        w[v, p] += 1 - a                                                 # rows sum to 1, >= 0
    kt = np.stack([np.array([4294967295] + list(SMPL_PARENTS[1:]), dtype=np.int64), np.arange(NJ)])
    return {"v_template": vt, "shapedirs": 0.02 * g.standard_normal((n_vertices, 3, n_betas)),
            "posedirs": 0.005 * g.standard_normal((n_vertices, 3, 9 * (NJ - 1))), "J_regressor": jr, "weights": w,
            "kintree_table": kt, "f": g.integers(0, n_vertices, (2 * n_vertices, 3))}


def _write(path, arrays):
    if str(path).endswith(".npz"):
        np.savez(path, **arrays)
    else:
        with open(path, "wb") as fh:
            pickle.dump(arrays, fh)
    return str(path)


@pytest.fixture(scope="module")
def smpl_file(tmp_path_factory):
    return _write(tmp_path_factory.mktemp("smpl") / "model.npz", _smpl_arrays())


def _rodrigues(w):
    th = np.linalg.norm(w)
    if th < 1e-12:
        return np.eye(3)
    k = w / th
    Kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(th) * Kx + (1 - np.cos(th)) * Kx @ Kx


def _lbs_reference(d, betas, pose, transl):
    """SMPL by its formulas (Loper et al. 2015), in numpy, one body."""
    nb = len(betas)
    T = d["v_template"] + d["shapedirs"][:, :, :nb] @ betas
    Jr = d["J_regressor"] @ T
    R = np.stack([_rodrigues(w) for w in pose.reshape(NJ, 3)])
    T = T + (d["posedirs"] @ (R[1:] - np.eye(3)).reshape(-1))
    G = np.zeros((NJ, 4, 4))
    for j in range(NJ):
        L = np.eye(4)
        L[:3, :3] = R[j]
        L[:3, 3] = Jr[j] - (Jr[SMPL_PARENTS[j]] if j else 0)
        G[j] = L if j == 0 else G[SMPL_PARENTS[j]] @ L
    joints = G[:, :3, 3] + transl
    A = G.copy()
    A[:, :3, 3] -= np.einsum("jab,jb->ja", G[:, :3, :3], Jr)             # G_j G_rest^-1
    M = np.einsum("vj,jab->vab", d["weights"], A)
    V = np.einsum("vab,vb->va", M[:, :3, :3], T) + M[:, :3, 3] + transl
    return V, joints


def test_smpl_file_through_smplx_matches_the_lbs_formulas(smpl_file):
    # smplx's loader rounds the model arrays to float32 (then computes in the body's dtype): so does the reference
    d = {k: v.astype(np.float32).astype(np.float64) for k, v in _smpl_arrays().items()}
    body = J.SMPLBodyModel(smpl_file)
    assert (body.n_joints, body.n_betas, body.n_vertices) == (NJ, NB, NV) and body.parents == SMPL_PARENTS
    g = np.random.default_rng(1)
    betas, pose, tr = g.normal(0, 1, (3, NB)), g.normal(0, 0.4, (3, 72)), g.normal(0, 1, (3, 3))
    out = body(betas=torch.tensor(betas), body_pose=torch.tensor(pose[:, 3:]), global_orient=torch.tensor(pose[:, :3]),
               transl=torch.tensor(tr))
    for b in range(3):
        V, Jt = _lbs_reference(d, betas[b], pose[b], tr[b])
        # 1e-7: smplx's Rodrigues adds 1e-8 to the rotation vectors (a wrong LBS would be off by centimetres)
        assert np.abs(out.vertices[b].numpy() - V).max() < 1e-7
        assert np.abs(out.joints[b].numpy() - Jt).max() < 1e-7


def test_pkl_and_npz_agree_and_the_batch_is_per_frame(smpl_file, tmp_path):
    pkl = _write(tmp_path / "model.pkl", _smpl_arrays())
    a, b = J.SMPLBodyModel(smpl_file), J.SMPLBodyModel(pkl)
    g = np.random.default_rng(2)
    kw = dict(betas=torch.tensor(g.normal(size=(4, NB))), body_pose=torch.tensor(g.normal(0, 0.3, (4, 23, 3))),
              global_orient=torch.tensor(g.normal(0, 0.3, (4, 1, 3))), transl=torch.tensor(g.normal(size=(4, 3))))
    va, vb = a(**kw), b(**kw)
    assert torch.equal(va.vertices, vb.vertices)
    one = a(**{k: v[2:3] for k, v in kw.items()})
    assert torch.allclose(one.vertices[0], va.vertices[2], atol=1e-12)
    shared = a(betas=kw["betas"][0], body_pose=kw["body_pose"], global_orient=kw["global_orient"])   # betas broadcast
    assert shared.joints.shape == (4, NJ, 3)


def test_gradients_reach_every_smpl_parameter(smpl_file):
    body = J.SMPLBodyModel(smpl_file)
    g = np.random.default_rng(3)
    x = [torch.tensor(g.normal(0, s, sh), requires_grad=True) for s, sh in ((1, (1, NB)), (0.3, (1, 69)),
                                                                          (0.3, (1, 3)), (1, (1, 3)))]
    assert torch.autograd.gradcheck(lambda *a: body(*a).joints[:, [0, 7, 15]].sum(-1), x, eps=1e-6, atol=1e-6)
    out = body(*x)
    (out.vertices.square().sum() + out.joints.sum()).backward()
    assert all(bool(t.grad.abs().sum() > 0) for t in x)


@pytest.mark.bad_input("scene3d.synthetic_smpl_file")
def test_synthetic_smpl_file_helper_loads(tmp_path):
    p = J.synthetic_smpl_file(tmp_path / "toy.pkl", n_vertices=120, rng=0)
    body = J.SMPLBodyModel(p)
    assert body.n_vertices == 120 and body.n_joints == 24
    with pytest.raises(InputError, match="path"):
        J.synthetic_smpl_file(tmp_path / "toy.obj")
    with pytest.raises(InputError, match="n_vertices"):
        J.synthetic_smpl_file(tmp_path / "toy.npz", n_vertices=10)
    assert not (tmp_path / "toy.npz").exists()                          # refused before writing


def _broken(key, fn):
    d = _smpl_arrays()
    d = fn(d) if fn else {k: v for k, v in d.items() if k != key}
    return d


@pytest.mark.bad_input("scene3d.SMPLBodyModel")
@pytest.mark.parametrize("name,fn", [
    ("no weights", None),
    ("weights not summing to 1", lambda d: d | {"weights": d["weights"] * 1.5}),
    ("posedirs for 22 joints", lambda d: d | {"posedirs": d["posedirs"][:, :, :189]}),
    ("J_regressor transposed", lambda d: d | {"J_regressor": d["J_regressor"].T}),
    ("parent after child", lambda d: d | {"kintree_table": np.stack([np.r_[0, 2, 0, d["kintree_table"][0, 3:]],
                                                                     np.arange(NJ)])}),
    ("faces out of range", lambda d: d | {"f": d["f"] + NV}),
    ("2-D shapedirs", lambda d: d | {"shapedirs": d["shapedirs"][:, :, 0]}),
])
def test_non_smpl_layouts_are_refused(tmp_path, name, fn):
    p = _write(tmp_path / "bad.npz", _broken("weights", fn))
    with pytest.raises(InputError, match="model_path"):
        J.SMPLBodyModel(p)


@pytest.mark.bad_input("scene3d.SMPLBodyModel")
def test_bad_model_paths_and_options(tmp_path, smpl_file):
    for bad in (tmp_path / "missing.pkl", tmp_path / "model.obj", 3):
        with pytest.raises(InputError, match="model_path"):
            J.SMPLBodyModel(bad)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="model_path"):
        J.SMPLBodyModel(tmp_path / "junk.npz")
    with pytest.raises(InputError, match="n_betas"):
        J.SMPLBodyModel(smpl_file, n_betas=11)
    with pytest.raises(InputError, match="contact_vertices"):
        J.SMPLBodyModel(smpl_file, contact_vertices=[0, NV])


@pytest.mark.bad_input("scene3d.ParametricBody", "scene3d.SMPLBodyModel")
@pytest.mark.parametrize("kw,arg", [
    (dict(betas=torch.zeros(2, 9)), "betas"),
    (dict(body_pose=torch.zeros(2, 70)), "body_pose"),
    (dict(body_pose=torch.zeros(2, 24, 3)), "body_pose"),
    (dict(global_orient=torch.zeros(2, 4)), "global_orient"),
    (dict(transl=torch.zeros(2, 2)), "transl"),
    (dict(body_pose=torch.zeros(2, 69), global_orient=torch.zeros(3, 3)), "body_pose"),   # batch mismatch
    (dict(betas=torch.full((1, 10), float("nan"))), "betas"),
])
def test_forward_refuses_wrong_shapes(smpl_file, kw, arg):
    with pytest.raises(InputError, match=arg):
        J.SMPLBodyModel(smpl_file)(**kw)


def test_missing_smplx_names_the_extra(smpl_file, monkeypatch):
    monkeypatch.setitem(sys.modules, "smplx", None)
    with pytest.raises(ModuleNotFoundError, match=r'pip install "iclr26sci\[3d\]"'):
        J.SMPLBodyModel(smpl_file)


def test_standin_behind_the_interface_is_the_geom_body():
    from iclr26sci.geom import BodyModel

    g = np.random.default_rng(4)
    pose, shape, tr = (torch.tensor(g.normal(0, s, sh)) for s, sh in ((0.3, (2, 72)), (0.5, (2, 4)), (1, (2, 3))))
    ref = BodyModel("standin", dtype=torch.float64)(pose, shape, tr)
    out = J.StandinBody()(betas=shape, body_pose=pose[:, 3:], global_orient=pose[:, :3], transl=tr)
    assert torch.equal(out.vertices, ref.vertices) and torch.equal(out.joints, ref.joints)


@pytest.mark.bad_input("scene3d.StandinBody", "scene3d.AnnyBody")
def test_builtin_bodies_refuse_bad_options():
    for make, arg in ((lambda: J.StandinBody(stature=9.0), "stature"), (lambda: J.StandinBody(dtype=torch.int64), "dtype"),
                      (lambda: J.AnnyBody(dtype=torch.float16), "dtype")):       # anny: refused before its build
        with pytest.raises(InputError, match=arg):
            make()
    with pytest.raises(InputError, match="body_pose"):
        J.StandinBody()(body_pose=np.zeros((1, 72)))


# ------------------------------------------------------------------------------------------------ JOSH on SMPL inputs
@pytest.fixture(scope="module")
def video():
    return J.human_scene_video(frames=9, keyframe_every=3, width=40, height=30, focal=50.0, rng=5, scene_scale=1.3)


def _smpl_inputs(video, body, rotmats=False):
    """The video's HMR fit handed over as SMPL parameters; contact labels on the SMPL body's foot vertices."""
    o = video.observations("realistic", rng=0)
    K = o.n_frames
    std = J.StandinBody()
    side = std.model.skin_joint[std.contact_vertices] % 2 == 0          # SMPL: left joints odd, right even
    foot_in_contact = np.stack([(o.contact & ~side).any(1), (o.contact & side).any(1)], 1)   # (K, 2)
    w = body.smpl.lbs_weights.numpy() if hasattr(body, "smpl") else None
    dom = w.argmax(1)
    labels = np.zeros((K, body.n_vertices), bool)
    labels[:, np.isin(dom, (7, 10))] = foot_in_contact[:, [0]]
    labels[:, np.isin(dom, (8, 11))] = foot_in_contact[:, [1]]
    go, bp = o.body_pose[:, :3], o.body_pose[:, 3:]
    if rotmats:
        from iclr26sci.geom import so3_exp

        go = so3_exp(torch.tensor(go)).numpy()
        bp = so3_exp(torch.tensor(bp.reshape(K, 23, 3))).numpy()
    return J.JOSHInputs.from_smpl(o.depth, o.confidence, o.human_mask, o.matches, betas=np.zeros(body.n_betas),
                                  body_pose=bp, global_orient=go, transl=o.body_translation, contact=labels,
                                  body_focal=o.body_focal), o


def test_from_smpl_reads_rotation_matrices_and_axis_angle_alike(video, smpl_file):
    body = J.SMPLBodyModel(smpl_file)
    a, o = _smpl_inputs(video, body)
    b, _ = _smpl_inputs(video, body, rotmats=True)
    assert np.abs(a.body_pose - b.body_pose).max() < 1e-9 and a.body_shape.shape == (o.n_frames, NB)


@pytest.fixture(scope="module")
def humanlike_file(tmp_path_factory):
    """An SMPL-layout file whose template is the stand-in's rest surface (so the HMR poses of the video fit it)."""
    return J.synthetic_smpl_file(tmp_path_factory.mktemp("smpl") / "humanlike.npz", n_vertices=300, rng=0)


def test_josh_optimises_smpl_parameters_through_the_interface(video, humanlike_file):
    body = J.SMPLBodyModel(humanlike_file)
    inp, _ = _smpl_inputs(video, body)
    assert inp.contact.any()
    res = J.JOSH(body_model=humanlike_file, n_iter=(25, 10), optimize_focal=False).fit(inp)
    wh = res.world_humans
    assert wh["vertices"].shape == (inp.n_frames, 300, 3) and wh["joints"].shape == (inp.n_frames, 24, 3)
    assert np.isfinite(wh["vertices"]).all() and res.n_contact_pairs > 0
    assert np.abs(wh["betas"]).max() > 0                                 # the shape moved from its zero start
    assert np.abs(wh["body_pose"] - inp.body_pose[:, 3:]).max() > 0     # and the pose from the HMR fit
    # the contact-scale term acts through the SMPL body: its residual falls (1.27 -> 0.18 when written)
    assert res.history[-1][2]["c1"] < 0.5 * res.history[0][2]["c1"]
    # the joints JOSH reports are the body's joints at the returned parameters, placed by the cameras
    out = body(betas=torch.tensor(wh["betas"]).expand(inp.n_frames, -1), body_pose=torch.tensor(wh["body_pose"]),
               global_orient=torch.tensor(wh["global_orient"]), transl=torch.tensor(wh["transl"]))
    Jw = np.einsum("kab,knb->kna", res.cameras[:, :3, :3], out.joints.numpy()) + res.cameras[:, None, :3, 3]
    assert np.abs(Jw - wh["joints"]).max() < 1e-9


class _SlowStandin(B.ParametricBody):
    """The stand-in through the generic path (not recognised as the stand-in, so no fast kinematics)."""

    name = "a wrapped stand-in"

    def __init__(self):
        super().__init__()
        self.inner = J.StandinBody()
        self.dtype = torch.float64
        self.parents, self.n_betas = self.inner.parents, 4
        self.faces, self.contact_vertices, self._n_vertices = self.inner.faces, self.inner.contact_vertices, 2072

    def _forward(self, betas, body_pose, global_orient, transl):
        return tuple(self.inner(betas, body_pose, global_orient, transl))


def test_generic_body_path_equals_the_fast_standin_path(video):
    o = video.observations("realistic", rng=0)
    kw = dict(n_iter=(15, 0), phases=("coarse",), optimize_focal=False)
    fast = J.JOSH(**kw).fit(o)
    slow = J.JOSH(body_model=_SlowStandin(), **kw).fit(o)
    assert isinstance(O.body_evaluator(_SlowStandin()), O.GenericBody)
    assert np.abs(fast.world_humans["joints"] - slow.world_humans["joints"]).max() < 1e-8
    assert abs(fast.history[-1][1] - slow.history[-1][1]) < 1e-9
    # a float32 stand-in in a float64 fit goes through the generic path (outputs cast to the fit's dtype)
    f32 = J.JOSH(body_model=J.StandinBody(dtype=torch.float32), **kw).fit(o)
    assert np.abs(fast.world_humans["joints"] - f32.world_humans["joints"]).max() < 1e-3


@pytest.mark.bad_input("scene3d.JOSH")
def test_josh_refuses_a_body_that_does_not_fit_the_inputs(video, smpl_file, tmp_path):
    o = video.observations("none", rng=0)
    with pytest.raises(InputError, match="body_shape"):
        J.JOSH(body_model=smpl_file, n_iter=(1, 0)).fit(o)                  # stand-in inputs (4 betas), SMPL body
    body = J.SMPLBodyModel(smpl_file)
    inp, _ = _smpl_inputs(video, body)
    d = inp.to_dict() | {"contact": inp.contact[:, :10]}
    with pytest.raises(InputError, match="contact"):
        J.JOSH(body_model=smpl_file, n_iter=(1, 0)).fit(J.JOSHInputs(**d))
    for spec in (tmp_path / "nope.npz", "anny", "smpl", 3.0):
        with pytest.raises(InputError, match="body_model"):
            J.JOSH(body_model=spec).fit(o)


@pytest.mark.bad_input("scene3d.JOSHInputs")
@pytest.mark.parametrize("field,value", [
    ("body_pose", lambda o: o.body_pose[:, 3:-1]),
    ("global_orient", lambda o: np.tile(2 * np.eye(3), (o.n_frames, 1, 1))),      # not rotations
    ("global_orient", lambda o: o.body_pose[:, :4]),
    ("betas", lambda o: np.zeros((o.n_frames + 1, 10))),
    ("transl", lambda o: o.body_translation[:1]),
])
def test_from_smpl_refuses_bad_parameters(video, field, value):
    o = video.observations("none", rng=0)
    kw = dict(betas=np.zeros(10), body_pose=o.body_pose[:, 3:], global_orient=o.body_pose[:, :3],
              transl=o.body_translation, contact=o.contact)
    kw[field] = value(o)
    with pytest.raises(InputError, match=field):
        J.JOSHInputs.from_smpl(o.depth, o.confidence, o.human_mask, o.matches, **kw)
