"""Bad input to every public name of iclr26sci.geom's core raises a clear InputError naming the argument."""
import math

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.geom import (Camera, DefaultStrategy, KinematicChain, backward_warp, chamfer_distance, charbonnier,
                            compose_chain, epe, flow_f1_all, forward_splat, geman_mcclure, hat, huber,
                            init_log_scales, kinematic_chain, project_gaussians, psnr, quat_multiply, quat_normalize,
                            quat_to_rotmat, rasterize_gaussians, rasterize_gaussians_reference, rot6d_to_rotmat,
                            rotmat_to_quat, rotmat_to_rot6d, se3_exp, se3_log, so3_exp, so3_log, ssim, umeyama)

BAD_INPUT_EXEMPT = {
    "geom.RasterResult": "result container returned by rasterize_gaussians; takes no user input",
    "geom.ProjectedGaussians": "result container returned by project_gaussians; takes no user input",
    "geom.SimilarityTransform": "result container returned by umeyama; takes no user input",
}

NAN3 = torch.tensor([float("nan"), 0.0, 0.0])


@pytest.mark.bad_input("geom.quat_normalize", "geom.quat_to_rotmat", "geom.quat_multiply")
def test_quaternions():
    with pytest.raises(InputError, match="`q`.*zero norm"):
        quat_to_rotmat(torch.zeros(2, 4))
    with pytest.raises(InputError, match="`q`"):
        quat_normalize(torch.tensor([1.0, float("inf"), 0, 0]))
    with pytest.raises(InputError, match="`q`"):
        quat_normalize(torch.zeros(3))
    with pytest.raises(InputError, match="`q2`"):
        quat_multiply(torch.ones(4), torch.ones(3))


@pytest.mark.bad_input("geom.rotmat_to_quat", "geom.so3_log", "geom.rotmat_to_rot6d", "geom.rot6d_to_rotmat")
def test_rotation_matrices():
    with pytest.raises(InputError, match="`R`"):
        rotmat_to_quat(torch.eye(4))
    with pytest.raises(InputError, match="`R`"):
        so3_log(torch.full((3, 3), float("nan")))
    with pytest.raises(InputError, match="`R`"):
        rotmat_to_rot6d(torch.eye(2))
    with pytest.raises(InputError, match="`d6`"):
        rot6d_to_rotmat(torch.tensor([1.0, 0, 0, 2.0, 0, 0]))
    with pytest.raises(InputError, match="`d6`"):
        rot6d_to_rotmat(torch.ones(5))


@pytest.mark.bad_input("geom.so3_exp", "geom.se3_exp", "geom.se3_log", "geom.hat")
def test_lie_maps():
    with pytest.raises(InputError, match="`w`"):
        so3_exp(NAN3)
    with pytest.raises(InputError, match="`xi`"):
        se3_exp(torch.ones(5))
    with pytest.raises(InputError, match="`T`"):
        se3_log(torch.eye(3))
    with pytest.raises(InputError, match="`w`"):
        hat(torch.ones(2))


@pytest.mark.bad_input("geom.Camera")
def test_camera():
    kw = dict(fx=10, fy=10, width=8, height=8)
    for name, bad in (("fx", 0), ("fx", -1.0), ("fy", float("nan")), ("width", 0), ("height", -3), ("width", 2.5)):
        with pytest.raises(InputError, match=f"`{name}`"):
            Camera.look_at([0.0, 0, -1], [0.0, 0, 0], up=[0.0, -1, 0], **{**kw, name: bad})
    with pytest.raises(InputError, match="`target`"):
        Camera.look_at([0.0, 0, 0], [0.0, 0, 0], **kw)
    with pytest.raises(InputError, match="`up`"):
        Camera.look_at([0.0, 0, -1], [0.0, 0, 0], up=[0.0, 0, 1], **kw)
    with pytest.raises(InputError, match="`R`"):
        Camera(R=2 * torch.eye(3), t=torch.zeros(3), fx=1, fy=1, cx=0, cy=0, width=2, height=2)
    with pytest.raises(InputError, match="`cx`"):
        Camera(R=torch.eye(3), t=torch.zeros(3), fx=1, fy=1, cx=float("inf"), cy=0, width=2, height=2)
    cam = Camera.look_at([0.0, 0, -1], [0.0, 0, 0], up=[0.0, -1, 0], **kw)
    with pytest.raises(InputError, match="`width`"):
        cam.scaled(0, 4)
    with pytest.raises(InputError, match="`depth`"):
        cam.unproject(torch.zeros(3, 2), torch.zeros(2))
    with pytest.raises(InputError, match="`points`"):
        cam.project(torch.zeros(3, 2))


def _scene(n=3):
    return [torch.zeros(n, 3), torch.tensor([[1.0, 0, 0, 0]] * n), torch.full((n, 3), -1.0), torch.zeros(n),
            torch.ones(n, 3)]


CAM = Camera.look_at([0.0, 0, -4], [0.0, 0, 0], up=[0.0, -1, 0], fx=8, fy=8, width=8, height=8)


@pytest.mark.bad_input("geom.rasterize_gaussians", "geom.rasterize_gaussians_reference", "geom.project_gaussians")
@pytest.mark.parametrize("fn", [rasterize_gaussians, rasterize_gaussians_reference])
def test_rasterizer(fn):
    for i, name, bad in ((0, "means", torch.tensor([[float("nan"), 0, 0]] * 3)),
                         (0, "means", torch.zeros(3, 2)),
                         (1, "quats", torch.zeros(3, 4)),
                         (1, "quats", torch.ones(2, 4)),
                         (2, "log_scales", torch.full((3, 3), float("inf"))),
                         (3, "opacity_logits", torch.zeros(3, 1)),
                         (4, "colors", torch.ones(3, 0)),
                         (4, "colors", torch.ones(3, 3, dtype=torch.float64))):
        args = _scene()
        args[i] = bad
        with pytest.raises(InputError, match=f"`{name}`"):
            fn(*args, CAM)
    with pytest.raises(InputError, match="`cam`"):
        fn(*_scene(), "camera")
    with pytest.raises(InputError, match="`background`"):
        fn(*_scene(), CAM, torch.zeros(4))
    for name, kw in (("eps2d", {"eps2d": -1.0}), ("near", {"near": 0.0}), ("far", {"far": 0.001})):
        with pytest.raises(InputError, match=f"`{name}`"):
            fn(*_scene(), CAM, **kw)
    if fn is rasterize_gaussians:
        with pytest.raises(InputError, match="`tile_size`"):
            fn(*_scene(), CAM, tile_size=0)
        with pytest.raises(InputError, match="`chunk_elements`"):
            fn(*_scene(), CAM, chunk_elements=0)
    with pytest.raises(InputError, match="`means`"):
        project_gaussians(torch.full((3, 3), float("nan")), *_scene()[1:4], CAM)


@pytest.mark.bad_input("geom.init_log_scales", "geom.DefaultStrategy")
def test_strategy():
    with pytest.raises(InputError, match="`points`"):
        init_log_scales(torch.zeros(3, 3))
    with pytest.raises(InputError, match="`k`"):
        init_log_scales(torch.rand(10, 3), k=0)
    with pytest.raises(InputError, match="`prune_opa`"):
        DefaultStrategy(prune_opa=1.5).initialize_state()
    with pytest.raises(InputError, match="`refine_every`"):
        DefaultStrategy(refine_every=0).initialize_state()
    s = DefaultStrategy()
    params = {k: torch.nn.Parameter(v) for k, v in zip(("means", "quats", "log_scales", "opacity_logits"), _scene()[:4])}
    opts = {k: torch.optim.Adam([v]) for k, v in params.items()}
    with pytest.raises(InputError, match="`params`"):
        s.step_post_backward({"means": params["means"]}, opts, s.initialize_state(), 1, torch.zeros(3, 2),
                             torch.ones(3), 8, 8)
    with pytest.raises(InputError, match="`optimizers`"):
        s.step_post_backward(params, {}, s.initialize_state(), 1, torch.zeros(3, 2), torch.ones(3), 8, 8)
    with pytest.raises(InputError, match="`grad2d`"):
        s.step_post_backward(params, opts, s.initialize_state(), 1, torch.zeros(2, 2), torch.ones(3), 8, 8)
    with pytest.raises(InputError, match="`width`"):
        s.step_post_backward(params, opts, s.initialize_state(), 1, torch.zeros(3, 2), torch.ones(3), 0, 8)


@pytest.mark.bad_input("geom.backward_warp", "geom.forward_splat")
def test_warps():
    img = torch.zeros(1, 3, 4, 4)
    with pytest.raises(InputError, match="`flow`"):
        backward_warp(img, torch.zeros(1, 2, 4, 5))
    with pytest.raises(InputError, match="`image`"):
        backward_warp(torch.zeros(3, 4, 4), torch.zeros(1, 2, 4, 4))
    with pytest.raises(InputError, match="`padding_mode`"):
        backward_warp(img, torch.zeros(1, 2, 4, 4), padding_mode="wrap")
    with pytest.raises(InputError, match="`flow`"):
        forward_splat(img, torch.full((1, 2, 4, 4), float("nan")), torch.ones(1, 1, 4, 4))
    with pytest.raises(InputError, match="`depth`"):
        forward_splat(img, torch.zeros(1, 2, 4, 4), torch.ones(1, 2, 4, 4))


@pytest.mark.bad_input("geom.umeyama")
def test_umeyama():
    x = torch.rand(5, 3)
    with pytest.raises(InputError, match="`dst`"):
        umeyama(x, torch.rand(4, 3))
    with pytest.raises(InputError, match="`src`"):
        umeyama(torch.ones(5, 3), x)
    with pytest.raises(InputError, match="`src`"):
        umeyama(torch.full((5, 3), float("nan")), x)
    with pytest.raises(InputError, match="`with_scale`"):
        umeyama(x, x, with_scale=1)


@pytest.mark.bad_input("geom.kinematic_chain", "geom.compose_chain", "geom.KinematicChain")
def test_chains():
    with pytest.raises(InputError, match="`costs`"):
        kinematic_chain(np.ones((2, 3)))
    with pytest.raises(InputError, match="`costs`"):
        kinematic_chain(np.array([[0, 1.0], [2.0, 0]]))
    with pytest.raises(InputError, match="`costs`.*disconnected"):
        kinematic_chain(np.array([[0, math.inf], [math.inf, 0]]))
    with pytest.raises(InputError, match="`root`"):
        kinematic_chain(np.zeros((2, 2)), root=5)
    ch = kinematic_chain(np.array([[0, 1.0], [1.0, 0]]))
    with pytest.raises(InputError, match="`relative`"):
        compose_chain(torch.eye(4).repeat(3, 1, 1), ch)
    with pytest.raises(InputError, match="`chain`"):
        compose_chain(torch.eye(4).repeat(2, 1, 1), {"parent": [-1, 0]})
    assert isinstance(ch, KinematicChain)


@pytest.mark.bad_input("geom.ssim", "geom.psnr")
def test_image_metrics():
    a = torch.rand(1, 1, 8, 8)
    with pytest.raises(InputError, match="`img2`"):
        ssim(a, torch.rand(1, 1, 8, 7))
    with pytest.raises(InputError, match="`window_size`"):
        ssim(a, a, window_size=4)
    with pytest.raises(InputError, match="`img1`"):
        ssim(torch.full((8, 8), float("nan")), torch.rand(8, 8))
    with pytest.raises(InputError, match="`data_range`"):
        psnr(a, a, data_range=0)
    with pytest.raises(InputError, match="`img2`"):
        psnr(a, torch.rand(2, 2))


@pytest.mark.bad_input("geom.charbonnier", "geom.geman_mcclure", "geom.huber")
def test_robust_losses():
    with pytest.raises(InputError, match="`eps`"):
        charbonnier(torch.ones(2), eps=0)
    with pytest.raises(InputError, match="`sigma`"):
        geman_mcclure(torch.ones(2), sigma=-1.0)
    with pytest.raises(InputError, match="`delta`"):
        huber(torch.ones(2), delta=float("inf"))
    with pytest.raises(InputError, match="`x`"):
        huber(torch.tensor([float("nan")]))


@pytest.mark.bad_input("geom.epe", "geom.flow_f1_all", "geom.chamfer_distance")
def test_flow_and_chamfer():
    with pytest.raises(InputError, match="`flow_gt`"):
        epe(torch.zeros(4, 2), torch.zeros(5, 2))
    with pytest.raises(InputError, match="`flow_pred`"):
        flow_f1_all(torch.zeros(4, 3), torch.zeros(4, 3))
    with pytest.raises(InputError, match="`valid`"):
        flow_f1_all(torch.zeros(4, 2), torch.zeros(4, 2), valid=torch.zeros(4, dtype=torch.bool))
    with pytest.raises(InputError, match="`y`"):
        chamfer_distance(torch.zeros(3, 3), torch.zeros(0, 3))
