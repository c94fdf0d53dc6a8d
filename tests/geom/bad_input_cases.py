"""Bad-input sweep cases for iclr26sci.geom (format: tests/bad_input_sweep.py)."""
import math

import numpy as np
import torch

from bad_input_sweep import Case
from iclr26sci import geom as G

I3 = torch.eye(3)
REFL = torch.diag(torch.tensor([1.0, 1.0, -1.0]))
NAN = float("nan")


def _cam(**kw):
    base = dict(fx=10.0, fy=10.0, width=8, height=8)
    base.update(kw)
    return G.Camera.look_at([0.0, 0, -3], [0.0, 0, 0], up=[0.0, -1, 0], **base)


def _gauss(n=2, **over):
    d = dict(means=torch.zeros(n, 3), quats=torch.tensor([[1.0, 0, 0, 0]] * n), log_scales=torch.full((n, 3), -2.0),
             opacity_logits=torch.zeros(n), colors=torch.rand(n, 3, generator=torch.Generator().manual_seed(0)))
    d.update(over)
    return d


def _raster(fn=G.rasterize_gaussians, n=2, cam=None, **over):
    kw = {k: v for k, v in over.items() if k not in ("means", "quats", "log_scales", "opacity_logits", "colors")}
    g = _gauss(n, **{k: v for k, v in over.items() if k in ("means", "quats", "log_scales", "opacity_logits", "colors")})
    return lambda: fn(g["means"], g["quats"], g["log_scales"], g["opacity_logits"], g["colors"],
                      _cam() if cam is None else cam, **kw)


def _project(**over):
    g = _gauss(2, **{k: v for k, v in over.items() if k in ("means", "quats", "log_scales", "opacity_logits")})
    kw = {k: v for k, v in over.items() if k not in g}
    return lambda: G.project_gaussians(g["means"], g["quats"], g["log_scales"], g["opacity_logits"], _cam(), **kw)


def _strategy_step(**over):
    def call():
        n = over.pop("n", 2)
        params = {"means": torch.nn.Parameter(torch.zeros(n, 3)),
                  "quats": torch.nn.Parameter(torch.tensor([[1.0, 0, 0, 0]] * n)),
                  "log_scales": torch.nn.Parameter(torch.full((n, 3), -5.0)),
                  "opacity_logits": torch.nn.Parameter(torch.zeros(n))}
        opts = {k: torch.optim.Adam([v], lr=1e-3) for k, v in params.items()}
        s = G.DefaultStrategy(refine_start_iter=0, refine_every=1)
        kw = dict(params=params, optimizers=opts, state=s.initialize_state(), step=1, grad2d=torch.zeros(n, 2),
                  radii=torch.tensor([3] * n), width=8, height=8)
        kw.update(over)
        return s.step_post_backward(**kw)
    return call


def _chain():
    return G.kinematic_chain(np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], float))


def _scene():
    return G.RaycastScene([G.box_mesh()], backend="numpy")


def _body():
    return G.BodyModel()


def _skel():
    return G.load_humanoid_skeleton()


def _flow(shape=(1, 4, 4, 2)):
    return torch.zeros(shape)


T_BAD_ROW = torch.eye(4)
T_BAD_ROW[3, 0] = 1.0
T_SCALED = torch.eye(4)
T_SCALED[:3, :3] = 2 * I3

CASES = [
    # ---- quaternions
    Case("geom.001", "quat_normalize", "zero quaternion", lambda: G.quat_normalize(torch.zeros(4)), "q"),
    Case("geom.002", "quat_normalize", "NaN entry", lambda: G.quat_normalize([1.0, NAN, 0, 0]), "q"),
    Case("geom.003", "quat_normalize", "3 entries", lambda: G.quat_normalize(torch.ones(3)), "q"),
    Case("geom.004", "quat_normalize", "negative eps", lambda: G.quat_normalize(torch.ones(4), eps=-1.0), "eps"),
    Case("geom.005", "quat_normalize", "string input", lambda: G.quat_normalize("abcd"), "q"),
    Case("geom.006", "quat_to_rotmat", "zero quaternion", lambda: G.quat_to_rotmat(torch.zeros(2, 4)), "q"),
    Case("geom.007", "quat_to_rotmat", "inf entry", lambda: G.quat_to_rotmat([float("inf"), 0, 0, 0]), "q"),
    Case("geom.008", "quat_to_rotmat", "complex dtype", lambda: G.quat_to_rotmat(torch.ones(4, dtype=torch.complex64)), "q"),
    Case("geom.009", "quat_multiply", "shape mismatch 3", lambda: G.quat_multiply(torch.ones(4), torch.ones(3)), "q2"),
    Case("geom.010", "quat_multiply", "NaN in q1", lambda: G.quat_multiply([NAN, 0, 0, 0], torch.ones(4)), "q1"),
    Case("geom.011", "quat_multiply", "batches that do not broadcast",
         lambda: G.quat_multiply(torch.ones(2, 4), torch.ones(3, 4)), ("q1", "q2")),
    # ---- rotation matrices
    Case("geom.012", "rotmat_to_quat", "2*I is not a rotation", lambda: G.rotmat_to_quat(2 * I3), "R"),
    Case("geom.013", "rotmat_to_quat", "reflection det -1", lambda: G.rotmat_to_quat(REFL), "R"),
    Case("geom.014", "rotmat_to_quat", "all-ones matrix", lambda: G.rotmat_to_quat(torch.ones(3, 3)), "R"),
    Case("geom.015", "rotmat_to_quat", "4x4 matrix", lambda: G.rotmat_to_quat(torch.eye(4)), "R"),
    Case("geom.016", "rotmat_to_quat", "zero matrix", lambda: G.rotmat_to_quat(torch.zeros(3, 3)), "R"),
    Case("geom.017", "rotmat_to_quat", "one bad in a batch",
         lambda: G.rotmat_to_quat(torch.stack([I3, 1.5 * I3])), "R"),
    Case("geom.018", "so3_log", "all-ones matrix", lambda: G.so3_log(torch.ones(3, 3)), "R"),
    Case("geom.019", "so3_log", "reflection", lambda: G.so3_log(REFL), "R"),
    Case("geom.020", "so3_log", "NaN matrix", lambda: G.so3_log(torch.full((3, 3), NAN)), "R"),
    Case("geom.021", "so3_log", "scaled rotation", lambda: G.so3_log(0.5 * I3), "R"),
    Case("geom.022", "rotmat_to_rot6d", "not a rotation", lambda: G.rotmat_to_rot6d(3 * I3), "R"),
    Case("geom.023", "rotmat_to_rot6d", "reflection", lambda: G.rotmat_to_rot6d(-I3), "R"),
    Case("geom.024", "rotmat_to_rot6d", "2x2 matrix", lambda: G.rotmat_to_rot6d(torch.eye(2)), "R"),
    Case("geom.025", "rot6d_to_rotmat", "parallel columns",
         lambda: G.rot6d_to_rotmat(torch.tensor([1.0, 0, 0, 2.0, 0, 0])), "d6"),
    Case("geom.026", "rot6d_to_rotmat", "zero first column", lambda: G.rot6d_to_rotmat(torch.tensor([0.0, 0, 0, 0, 1, 0])), "d6"),
    Case("geom.027", "rot6d_to_rotmat", "5 entries", lambda: G.rot6d_to_rotmat(torch.ones(5)), "d6"),
    Case("geom.028", "rot6d_to_rotmat", "NaN entry", lambda: G.rot6d_to_rotmat([NAN, 0, 0, 0, 1, 0]), "d6"),
    # ---- Lie maps
    Case("geom.029", "so3_exp", "NaN vector", lambda: G.so3_exp([NAN, 0.0, 0.0]), "w"),
    Case("geom.030", "so3_exp", "4-vector", lambda: G.so3_exp(torch.ones(4)), "w"),
    Case("geom.031", "so3_exp", "string", lambda: G.so3_exp("xyz"), "w"),
    Case("geom.032", "se3_exp", "5-vector", lambda: G.se3_exp(torch.ones(5)), "xi"),
    Case("geom.033", "se3_exp", "inf entry", lambda: G.se3_exp([0, 0, float("inf"), 0, 0, 0]), "xi"),
    Case("geom.034", "se3_log", "2*I is not rigid", lambda: G.se3_log(2 * torch.eye(4)), "T"),
    Case("geom.035", "se3_log", "scaled rotation block", lambda: G.se3_log(T_SCALED), "T"),
    Case("geom.036", "se3_log", "bottom row not (0,0,0,1)", lambda: G.se3_log(T_BAD_ROW), "T"),
    Case("geom.037", "se3_log", "3x3 input", lambda: G.se3_log(torch.eye(3)), "T"),
    Case("geom.038", "se3_log", "reflection block",
         lambda: G.se3_log(torch.block_diag(REFL, torch.ones(1, 1))), "T"),
    Case("geom.039", "hat", "2-vector", lambda: G.hat(torch.ones(2)), "w"),
    Case("geom.040", "hat", "NaN", lambda: G.hat([NAN, 1.0, 1.0]), "w"),
    # ---- Camera
    Case("geom.041", "Camera", "zero focal length", lambda: _cam(fx=0), "fx"),
    Case("geom.042", "Camera", "negative focal length", lambda: _cam(fy=-2.0), "fy"),
    Case("geom.043", "Camera", "NaN focal", lambda: _cam(fx=NAN), "fx"),
    Case("geom.044", "Camera", "zero width", lambda: _cam(width=0), "width"),
    Case("geom.045", "Camera", "float height", lambda: _cam(height=2.5), "height"),
    Case("geom.046", "Camera", "R = 2I",
         lambda: G.Camera(R=2 * I3, t=torch.zeros(3), fx=1, fy=1, cx=0, cy=0, width=2, height=2), "R"),
    Case("geom.047", "Camera", "reflection R",
         lambda: G.Camera(R=REFL, t=torch.zeros(3), fx=1, fy=1, cx=0, cy=0, width=2, height=2), "R"),
    Case("geom.048", "Camera", "infinite cx",
         lambda: G.Camera(R=I3, t=torch.zeros(3), fx=1, fy=1, cx=float("inf"), cy=0, width=2, height=2), "cx"),
    Case("geom.049", "Camera", "t of 2 entries",
         lambda: G.Camera(R=I3, t=torch.zeros(2), fx=1, fy=1, cx=0, cy=0, width=2, height=2), "t"),
    Case("geom.050", "Camera", "NaN in t",
         lambda: G.Camera(R=I3, t=torch.tensor([NAN, 0, 0]), fx=1, fy=1, cx=0, cy=0, width=2, height=2), "t"),
    Case("geom.051", "Camera.look_at", "target equals eye",
         lambda: G.Camera.look_at([0.0, 0, 0], [0.0, 0, 0], fx=1, fy=1, width=2, height=2), "target"),
    Case("geom.052", "Camera.look_at", "up parallel to view",
         lambda: G.Camera.look_at([0.0, 0, -1], [0.0, 0, 0], up=[0.0, 0, 1], fx=1, fy=1, width=2, height=2), "up"),
    Case("geom.053", "Camera.look_at", "zero up", lambda: _cam(up=[0.0, 0, 0]) if False else
         G.Camera.look_at([0.0, 0, -1], [0.0, 0, 0], up=[0.0, 0, 0], fx=1, fy=1, width=2, height=2), "up"),
    Case("geom.054", "Camera.look_at", "NaN eye",
         lambda: G.Camera.look_at([NAN, 0, -1], [0.0, 0, 0], fx=1, fy=1, width=2, height=2), "eye"),
    Case("geom.055", "Camera.look_at", "integer dtype",
         lambda: G.Camera.look_at([0.0, 0, -1], [0.0, 0, 0], fx=1, fy=1, width=2, height=2, dtype=torch.int64), "dtype"),
    Case("geom.056", "Camera.look_at", "unknown device string",
         lambda: G.Camera.look_at([0.0, 0, -1], [0.0, 0, 0], fx=1, fy=1, width=2, height=2, device="tpu"), "device"),
    Case("geom.057", "Camera.scaled", "zero width", lambda: _cam().scaled(0, 4), "width"),
    Case("geom.058", "Camera.scaled", "float height", lambda: _cam().scaled(4, 4.5), "height"),
    Case("geom.059", "Camera.unproject", "depth shape mismatch", lambda: _cam().unproject(torch.zeros(3, 2), torch.zeros(2)), "depth"),
    Case("geom.060", "Camera.unproject", "NaN depth", lambda: _cam().unproject(torch.zeros(1, 2), torch.tensor([NAN])), "depth"),
    Case("geom.061", "Camera.unproject", "negative depth",
         lambda: _cam().unproject(torch.zeros(1, 2), torch.tensor([-1.0])), "depth"),
    Case("geom.062", "Camera.unproject", "uv of 3 columns", lambda: _cam().unproject(torch.zeros(1, 3), torch.ones(1)), "uv"),
    Case("geom.063", "Camera.project", "points of 2 columns", lambda: _cam().project(torch.zeros(4, 2)), "points"),
    Case("geom.064", "Camera.project", "NaN point", lambda: _cam().project(torch.tensor([[NAN, 0, 0]])), "points"),
    Case("geom.065", "Camera.world_to_camera", "string", lambda: _cam().world_to_camera("abc"), "points"),
    Case("geom.066", "Camera.camera_to_world", "inf", lambda: _cam().camera_to_world([[float("inf"), 0, 1]]), "points_cam"),
    Case("geom.067", "Camera.to", "integer dtype", lambda: _cam().to(dtype=torch.int32), "dtype"),
    Case("geom.068", "Camera.to", "unknown device", lambda: _cam().to(device="tpu"), "device"),
    # ---- rasterizer
    Case("geom.069", "rasterize_gaussians", "NaN means", _raster(means=torch.tensor([[NAN, 0, 0], [0, 0, 0]])), "means"),
    Case("geom.070", "rasterize_gaussians", "zero quaternion", _raster(quats=torch.zeros(2, 4)), "quats"),
    Case("geom.071", "rasterize_gaussians", "scales row count", _raster(log_scales=torch.zeros(3, 3)), "log_scales"),
    Case("geom.072", "rasterize_gaussians", "opacities 2-D", _raster(opacity_logits=torch.zeros(2, 1)), "opacity_logits"),
    Case("geom.073", "rasterize_gaussians", "colors rows", _raster(colors=torch.zeros(3, 3)), "colors"),
    Case("geom.074", "rasterize_gaussians", "background wrong channels", _raster(background=torch.zeros(4)), "background"),
    Case("geom.075", "rasterize_gaussians", "negative eps2d", _raster(eps2d=-1.0), "eps2d"),
    Case("geom.076", "rasterize_gaussians", "near <= 0", _raster(near=0.0), "near"),
    Case("geom.077", "rasterize_gaussians", "far <= near", _raster(near=1.0, far=0.5), "far"),
    Case("geom.078", "rasterize_gaussians", "tile size 0", _raster(tile_size=0), "tile_size"),
    Case("geom.079", "rasterize_gaussians", "chunk_elements 0", _raster(chunk_elements=0), "chunk_elements"),
    Case("geom.080", "rasterize_gaussians", "cam not a Camera", _raster(cam="camera"), "cam"),
    Case("geom.081", "rasterize_gaussians", "antialiased not bool", _raster(antialiased="yes"), "antialiased"),
    Case("geom.082", "rasterize_gaussians", "means float64, quats float32",
         _raster(means=torch.zeros(2, 3, dtype=torch.float64)), ("quats", "means")),
    Case("geom.083", "rasterize_gaussians", "huge log-scales overflow", _raster(log_scales=torch.full((2, 3), 500.0)),
         "log_scales"),
    Case("geom.084", "rasterize_gaussians", "NaN eps2d", _raster(eps2d=NAN), "eps2d"),
    Case("geom.085", "rasterize_gaussians_reference", "inf colors",
         _raster(G.rasterize_gaussians_reference, colors=torch.full((2, 3), float("inf"))), "colors"),
    Case("geom.086", "rasterize_gaussians_reference", "antialiased string",
         _raster(G.rasterize_gaussians_reference, antialiased="no"), "antialiased"),
    Case("geom.087", "rasterize_gaussians_reference", "near negative",
         _raster(G.rasterize_gaussians_reference, near=-1.0), "near"),
    Case("geom.088", "project_gaussians", "quats 3 columns", _project(quats=torch.ones(2, 3)), "quats"),
    Case("geom.089", "project_gaussians", "eps2d negative", _project(eps2d=-0.1), "eps2d"),
    Case("geom.090", "project_gaussians", "antialiased 1", _project(antialiased=1), "antialiased"),
    Case("geom.091", "project_gaussians", "NaN opacity", _project(opacity_logits=torch.tensor([NAN, 0.0])), "opacity_logits"),
    # ---- strategy
    Case("geom.092", "init_log_scales", "too few points", lambda: G.init_log_scales(torch.zeros(3, 3)), "points"),
    Case("geom.093", "init_log_scales", "k = 0", lambda: G.init_log_scales(torch.rand(5, 3), k=0), "k"),
    Case("geom.094", "init_log_scales", "NaN point", lambda: G.init_log_scales(torch.tensor([[NAN, 0, 0]] * 5)), "points"),
    Case("geom.095", "init_log_scales", "2-D points", lambda: G.init_log_scales(torch.rand(5, 2)), "points"),
    Case("geom.096", "init_log_scales", "negative min_dist2", lambda: G.init_log_scales(torch.rand(5, 3), min_dist2=-1.0),
         "min_dist2"),
    Case("geom.097", "init_log_scales", "zero min_dist2 with duplicates",
         lambda: G.init_log_scales(torch.zeros(5, 3), min_dist2=0.0), "min_dist2"),
    Case("geom.098", "DefaultStrategy", "refine_stop before refine_start",
         lambda: G.DefaultStrategy(refine_start_iter=100, refine_stop_iter=10), ("refine_stop_iter", "refine_start_iter")),
    Case("geom.099", "DefaultStrategy", "prune_opa 0.6 (reset cap undefined)",
         lambda: G.DefaultStrategy(prune_opa=0.6), "prune_opa"),
    Case("geom.100", "DefaultStrategy", "refine_every 0", lambda: G.DefaultStrategy(refine_every=0), "refine_every"),
    Case("geom.101", "DefaultStrategy", "negative grow_grad2d", lambda: G.DefaultStrategy(grow_grad2d=-1.0), "grow_grad2d"),
    Case("geom.102", "DefaultStrategy", "float iteration", lambda: G.DefaultStrategy(refine_start_iter=1.5), "refine_start_iter"),
    Case("geom.103", "DefaultStrategy", "NaN scene scale", lambda: G.DefaultStrategy(scene_scale=NAN), "scene_scale"),
    Case("geom.104", "DefaultStrategy", "bad rng", lambda: G.DefaultStrategy(rng="seed"), "rng"),
    Case("geom.105", "DefaultStrategy.step_post_backward", "grad2d wrong shape", _strategy_step(grad2d=torch.zeros(3, 2)),
         "grad2d"),
    Case("geom.106", "DefaultStrategy.step_post_backward", "NaN grad2d",
         _strategy_step(grad2d=torch.full((2, 2), NAN)), "grad2d"),
    Case("geom.107", "DefaultStrategy.step_post_backward", "radii wrong shape", _strategy_step(radii=torch.zeros(3)), "radii"),
    Case("geom.108", "DefaultStrategy.step_post_backward", "negative step", _strategy_step(step=-1), "step"),
    Case("geom.109", "DefaultStrategy.step_post_backward", "zero width", _strategy_step(width=0), "width"),
    Case("geom.110", "DefaultStrategy.step_post_backward", "params missing key",
         _strategy_step(params={"means": torch.nn.Parameter(torch.zeros(2, 3))}), "params"),
    Case("geom.111", "DefaultStrategy.step_post_backward", "optimizers missing", _strategy_step(optimizers={}), "optimizers"),
    Case("geom.112", "DefaultStrategy.step_post_backward", "state not a dict", _strategy_step(state=None), "state"),
    Case("geom.113", "DefaultStrategy.step_post_backward", "negative radii",
         _strategy_step(radii=torch.tensor([-1, 3])), "radii"),
    # ---- warps
    Case("geom.114", "backward_warp", "flow wrong shape", lambda: G.backward_warp(torch.zeros(1, 3, 4, 4), _flow((1, 2, 4, 3))),
         "flow"),
    Case("geom.115", "backward_warp", "NaN flow",
         lambda: G.backward_warp(torch.zeros(1, 3, 4, 4), torch.full((1, 2, 4, 4), NAN)), "flow"),
    Case("geom.116", "backward_warp", "3-D image", lambda: G.backward_warp(torch.zeros(3, 4, 4), _flow()), "image"),
    Case("geom.117", "backward_warp", "bad padding", lambda: G.backward_warp(torch.zeros(1, 3, 4, 4), torch.zeros(1, 2, 4, 4),
                                                                             padding_mode="wrap"), "padding_mode"),
    Case("geom.118", "backward_warp", "numpy image", lambda: G.backward_warp(np.zeros((1, 3, 4, 4)), torch.zeros(1, 2, 4, 4)),
         "image"),
    Case("geom.119", "backward_warp", "flow dtype differs",
         lambda: G.backward_warp(torch.zeros(1, 3, 4, 4), torch.zeros(1, 2, 4, 4, dtype=torch.float64)), "flow"),
    Case("geom.120", "forward_splat", "depth wrong shape",
         lambda: G.forward_splat(torch.zeros(1, 3, 4, 4), torch.zeros(1, 2, 4, 4), torch.zeros(1, 1, 4, 3)), "depth"),
    Case("geom.121", "forward_splat", "NaN depth",
         lambda: G.forward_splat(torch.zeros(1, 3, 4, 4), torch.zeros(1, 2, 4, 4), torch.full((1, 1, 4, 4), NAN)), "depth"),
    Case("geom.122", "forward_splat", "inf flow",
         lambda: G.forward_splat(torch.zeros(1, 3, 4, 4), torch.full((1, 2, 4, 4), float("inf")), torch.ones(1, 1, 4, 4)),
         "flow"),
    Case("geom.123", "forward_splat", "empty image",
         lambda: G.forward_splat(torch.zeros(1, 3, 0, 4), torch.zeros(1, 2, 0, 4), torch.ones(1, 1, 0, 4)), "values"),
    # ---- alignment
    Case("geom.124", "umeyama", "2 points in 3-D (rotation undetermined)",
         lambda: G.umeyama(torch.tensor([[0.0, 0, 0], [1, 0, 0]]), torch.tensor([[0.0, 0, 0], [2, 0, 0]])), "src"),
    Case("geom.125", "umeyama", "collinear points in 3-D",
         lambda: G.umeyama(torch.tensor([[0.0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]),
                           torch.tensor([[0.0, 0, 0], [0, 1, 0], [0, 2, 0], [0, 3, 0]])), "src"),
    Case("geom.126", "umeyama", "one point", lambda: G.umeyama(torch.zeros(1, 3), torch.zeros(1, 3)), "src"),
    Case("geom.127", "umeyama", "all points equal", lambda: G.umeyama(torch.zeros(4, 3), torch.rand(4, 3)), "src"),
    Case("geom.128", "umeyama", "shape mismatch", lambda: G.umeyama(torch.rand(4, 3), torch.rand(5, 3)), "dst"),
    Case("geom.129", "umeyama", "NaN dst", lambda: G.umeyama(torch.rand(4, 3), torch.full((4, 3), NAN)), "dst"),
    Case("geom.130", "umeyama", "with_scale string", lambda: G.umeyama(torch.rand(4, 3), torch.rand(4, 3), with_scale="yes"),
         "with_scale"),
    Case("geom.131", "umeyama", "1-D input", lambda: G.umeyama(torch.rand(3), torch.rand(3)), "src"),
    Case("geom.132", "umeyama", "integer tensors", lambda: G.umeyama(torch.zeros(4, 3, dtype=torch.long),
                                                                      torch.zeros(4, 3, dtype=torch.long)), "src"),
    Case("geom.133", "umeyama", "all dst points equal (scale 0)",
         lambda: G.umeyama(torch.eye(3).repeat(2, 1) + torch.arange(6.0)[:, None], torch.ones(6, 3)), "dst"),
    # ---- chains
    Case("geom.134", "kinematic_chain", "asymmetric costs", lambda: G.kinematic_chain(np.array([[0, 1.0], [2, 0]])), "costs"),
    Case("geom.135", "kinematic_chain", "negative cost", lambda: G.kinematic_chain(np.array([[0, -1.0], [-1, 0]])), "costs"),
    Case("geom.136", "kinematic_chain", "root out of range", lambda: G.kinematic_chain(np.zeros((2, 2)), root=5), "root"),
    Case("geom.137", "kinematic_chain", "disconnected", lambda: G.kinematic_chain(np.array([[0, np.inf], [np.inf, 0]])), "costs"),
    Case("geom.138", "kinematic_chain", "non-square", lambda: G.kinematic_chain(np.zeros((2, 3))), "costs"),
    Case("geom.139", "kinematic_chain", "empty", lambda: G.kinematic_chain(np.zeros((0, 0))), "costs"),
    Case("geom.140", "kinematic_chain", "NaN cost", lambda: G.kinematic_chain(np.array([[0, NAN], [NAN, 0]])), "costs"),
    Case("geom.141", "kinematic_chain", "float root", lambda: G.kinematic_chain(np.zeros((2, 2)), root=0.5), "root"),
    Case("geom.142", "compose_chain", "chain not a KinematicChain",
         lambda: G.compose_chain(torch.eye(4).repeat(3, 1, 1), "chain"), "chain"),
    Case("geom.143", "compose_chain", "wrong number of poses",
         lambda: G.compose_chain(torch.eye(4).repeat(2, 1, 1), _chain()), "relative"),
    Case("geom.144", "compose_chain", "non-rigid relative pose",
         lambda: G.compose_chain(2 * torch.eye(4).repeat(3, 1, 1), _chain()), "relative"),
    Case("geom.145", "compose_chain", "non-rigid root pose",
         lambda: G.compose_chain(torch.eye(4).repeat(3, 1, 1), _chain(), root_pose=T_BAD_ROW), "root_pose"),
    # ---- metrics
    Case("geom.146", "ssim", "shape mismatch", lambda: G.ssim(torch.rand(8, 8), torch.rand(8, 9)), "img2"),
    Case("geom.147", "ssim", "even window", lambda: G.ssim(torch.rand(8, 8), torch.rand(8, 8), window_size=4), "window_size"),
    Case("geom.148", "ssim", "0-255 image with data_range 1",
         lambda: G.ssim(torch.rand(8, 8) * 255, torch.rand(8, 8) * 255), ("img1", "img2", "data_range")),
    Case("geom.149", "ssim", "bad reduction", lambda: G.ssim(torch.rand(8, 8), torch.rand(8, 8), reduction="sum"), "reduction"),
    Case("geom.150", "ssim", "5-D images", lambda: G.ssim(torch.rand(1, 1, 1, 8, 8), torch.rand(1, 1, 1, 8, 8)), "img1"),
    Case("geom.151", "ssim", "NaN image", lambda: G.ssim(torch.full((8, 8), NAN), torch.rand(8, 8)), "img1"),
    Case("geom.152", "ssim", "zero sigma", lambda: G.ssim(torch.rand(8, 8), torch.rand(8, 8), sigma=0.0), "sigma"),
    Case("geom.153", "ssim", "empty image", lambda: G.ssim(torch.rand(0, 8), torch.rand(0, 8)), "img1"),
    Case("geom.154", "psnr", "0-255 images with data_range 1",
         lambda: G.psnr(torch.rand(8, 8) * 255, torch.rand(8, 8) * 255), ("img1", "img2", "data_range")),
    Case("geom.155", "psnr", "negative data range", lambda: G.psnr(torch.rand(4, 4), torch.rand(4, 4), data_range=-1.0),
         "data_range"),
    Case("geom.156", "psnr", "empty images", lambda: G.psnr(torch.rand(0, 4), torch.rand(0, 4)), "img1"),
    Case("geom.157", "psnr", "shape mismatch", lambda: G.psnr(torch.rand(4, 4), torch.rand(4, 5)), "img2"),
    Case("geom.158", "charbonnier", "zero eps", lambda: G.charbonnier(torch.ones(3), eps=0.0), "eps"),
    Case("geom.159", "charbonnier", "NaN x", lambda: G.charbonnier(torch.tensor([NAN])), "x"),
    Case("geom.160", "geman_mcclure", "negative sigma", lambda: G.geman_mcclure(torch.ones(3), sigma=-1.0), "sigma"),
    Case("geom.161", "geman_mcclure", "string x", lambda: G.geman_mcclure("abc"), "x"),
    Case("geom.162", "huber", "zero delta", lambda: G.huber(torch.ones(3), delta=0), "delta"),
    Case("geom.163", "huber", "inf x", lambda: G.huber(torch.tensor([float("inf")])), "x"),
    Case("geom.164", "epe", "channels not last", lambda: G.epe(torch.zeros(2, 4, 4), torch.zeros(2, 4, 4)), "flow_pred"),
    Case("geom.165", "epe", "shape mismatch", lambda: G.epe(torch.zeros(4, 2), torch.zeros(5, 2)), "flow_gt"),
    Case("geom.166", "epe", "no valid pixel", lambda: G.epe(torch.zeros(4, 2), torch.zeros(4, 2), valid=torch.zeros(4)), "valid"),
    Case("geom.167", "epe", "valid wrong shape", lambda: G.epe(torch.zeros(4, 2), torch.zeros(4, 2), valid=torch.ones(3)), "valid"),
    Case("geom.168", "epe", "empty flows", lambda: G.epe(torch.zeros(0, 2), torch.zeros(0, 2)), "flow_pred"),
    Case("geom.169", "epe", "valid not boolean (0.5)",
         lambda: G.epe(torch.zeros(2, 2), torch.zeros(2, 2), valid=torch.tensor([0.5, 1.0])), "valid"),
    Case("geom.170", "flow_f1_all", "NaN prediction", lambda: G.flow_f1_all(torch.full((4, 2), NAN), torch.zeros(4, 2)),
         "flow_pred"),
    Case("geom.171", "flow_f1_all", "empty flows", lambda: G.flow_f1_all(torch.zeros(0, 2), torch.zeros(0, 2)), "flow_pred"),
    Case("geom.172", "flow_f1_all", "valid with NaN",
         lambda: G.flow_f1_all(torch.zeros(2, 2), torch.zeros(2, 2), valid=torch.tensor([NAN, 1.0])), "valid"),
    Case("geom.173", "chamfer_distance", "dimension mismatch", lambda: G.chamfer_distance(torch.rand(4, 3), torch.rand(4, 2)), "y"),
    Case("geom.174", "chamfer_distance", "empty set", lambda: G.chamfer_distance(torch.rand(0, 3), torch.rand(4, 3)), ("x", "y")),
    Case("geom.175", "chamfer_distance", "squared string",
         lambda: G.chamfer_distance(torch.rand(4, 3), torch.rand(4, 3), squared="no"), "squared"),
    Case("geom.176", "chamfer_distance", "NaN point", lambda: G.chamfer_distance(torch.full((4, 3), NAN), torch.rand(4, 3)), "x"),
    # ---- ray casting
    Case("geom.177", "RaycastScene", "bad backend", lambda: G.RaycastScene([G.box_mesh()], backend="embree"), "backend"),
    Case("geom.178", "RaycastScene", "not a mesh", lambda: G.RaycastScene(["mesh"], backend="numpy"), ("meshes", "mesh")),
    Case("geom.179", "RaycastScene", "empty list", lambda: G.RaycastScene([], backend="numpy"), ("meshes", "mesh")),
    Case("geom.180", "RaycastScene", "faces out of range",
         lambda: G.RaycastScene([(np.zeros((3, 3)), np.array([[0, 1, 5]]))], backend="numpy"), ("meshes", "mesh")),
    Case("geom.181", "RaycastScene.from_mesh", "NaN vertices",
         lambda: G.RaycastScene.from_mesh((np.full((3, 3), NAN), np.array([[0, 1, 2]])), backend="numpy"), "mesh"),
    Case("geom.182", "RaycastScene.cast_rays", "zero direction",
         lambda: _scene().cast_rays(np.zeros((1, 3)), np.zeros((1, 3))), "directions"),
    Case("geom.183", "RaycastScene.cast_rays", "NaN origin",
         lambda: _scene().cast_rays(np.full((1, 3), NAN), np.ones((1, 3))), "origins"),
    Case("geom.184", "RaycastScene.cast_rays", "origins of 2 columns",
         lambda: _scene().cast_rays(np.zeros((1, 2)), np.ones((1, 3))), "origins"),
    Case("geom.185", "RaycastScene.cast_rays", "shapes do not broadcast",
         lambda: _scene().cast_rays(np.zeros((2, 3)), np.ones((3, 3))), "directions"),
    Case("geom.186", "RaycastScene.render", "camera not a camera", lambda: _scene().render("cam"), "camera"),
    Case("geom.187", "RaycastScene.camera_rays", "camera not a camera", lambda: G.RaycastScene.camera_rays(None), "camera"),
    Case("geom.188", "RaycastScene.shadow", "zero directional light",
         lambda: _scene().shadow(np.zeros((1, 3)), np.zeros(3), directional=True), "light"),
    Case("geom.189", "RaycastScene.shadow", "negative eps",
         lambda: _scene().shadow(np.zeros((1, 3)), np.ones(3), eps=-1.0), "eps"),
    Case("geom.190", "RaycastScene.shadow", "directional string",
         lambda: _scene().shadow(np.zeros((1, 3)), np.ones(3), directional="yes"), "directional"),
    Case("geom.191", "RaycastScene.shadow", "light of 2 entries",
         lambda: _scene().shadow(np.zeros((1, 3)), np.ones(2)), "light"),
    Case("geom.192", "RaycastScene.shadow", "NaN points",
         lambda: _scene().shadow(np.full((1, 3), NAN), np.ones(3)), "points"),
    Case("geom.193", "RaycastScene.lidar", "zero beams", lambda: _scene().lidar(np.zeros(3), n_beams=0), "n_beams"),
    Case("geom.194", "RaycastScene.lidar", "fov_down above fov_up",
         lambda: _scene().lidar(np.zeros(3), fov_up=-10.0, fov_down=10.0), "fov_down"),
    Case("geom.195", "RaycastScene.lidar", "negative range", lambda: _scene().lidar(np.zeros(3), max_range=-1.0), "max_range"),
    Case("geom.196", "RaycastScene.lidar", "fov above 90", lambda: _scene().lidar(np.zeros(3), fov_up=120.0), "fov_up"),
    Case("geom.197", "RaycastScene.lidar", "origin 2-vector", lambda: _scene().lidar(np.zeros(2)), "origin"),
    Case("geom.198", "RaycastScene.occupancy", "NaN points", lambda: _scene().occupancy(np.full((2, 3), NAN)), "points"),
    Case("geom.199", "RaycastScene.occupancy", "points of 2 columns", lambda: _scene().occupancy(np.zeros((2, 2))), "points"),
    # ---- body model
    Case("geom.200", "BodyModel", "unknown kind", lambda: G.BodyModel("smplx"), "kind"),
    Case("geom.201", "BodyModel", "stature 5 m", lambda: G.BodyModel(stature=5.0), "stature"),
    Case("geom.202", "BodyModel", "n_around 2", lambda: G.BodyModel(n_around=2), "n_around"),
    Case("geom.203", "BodyModel", "float16 dtype", lambda: G.BodyModel(dtype=torch.float16), "dtype"),
    Case("geom.204", "BodyModel.forward", "pose of 10 entries", lambda: _body().forward(pose=torch.zeros(1, 10)), "pose"),
    Case("geom.205", "BodyModel.forward", "NaN shape", lambda: _body().forward(shape=torch.full((1, 4), NAN)), "shape"),
    Case("geom.206", "BodyModel.forward", "batch mismatch",
         lambda: _body().forward(pose=torch.zeros(2, 72), translation=torch.zeros(3, 3)), ("translation", "pose")),
    Case("geom.207", "BodyModel.forward", "extreme shape coefficients (overflow)",
         lambda: _body().forward(shape=torch.full((1, 4), 1e4)), "shape"),
    Case("geom.208", "BodyModel.forward", "translation 2 entries", lambda: _body().forward(translation=torch.zeros(1, 2)),
         "translation"),
    Case("geom.209", "BodyModel.forward", "string pose", lambda: _body().forward(pose="rest"), "pose"),
    Case("geom.210", "BodyModel.rest_joints", "shape of 3 entries", lambda: _body().rest_joints(torch.zeros(1, 3)), "shape"),
    Case("geom.211", "BodyModel.bone_offsets", "inf shape", lambda: _body().bone_offsets(torch.full((1, 4), float("inf"))),
         "shape"),
    Case("geom.212", "BodyModel.bone_offsets", "extreme shape", lambda: _body().bone_offsets(torch.full((1, 4), -1e4)), "shape"),
    # ---- meshes and scenes
    Case("geom.213", "uv_sphere", "negative radius", lambda: G.uv_sphere(radius=-1.0), "radius"),
    Case("geom.214", "uv_sphere", "n_lat 1", lambda: G.uv_sphere(n_lat=1), "n_lat"),
    Case("geom.215", "uv_sphere", "NaN centre", lambda: G.uv_sphere(centre=(NAN, 0, 0)), "centre"),
    Case("geom.216", "uv_sphere", "n_lon 2", lambda: G.uv_sphere(n_lon=2), "n_lon"),
    Case("geom.217", "box_mesh", "hi below lo", lambda: G.box_mesh(lo=(1, 1, 1), hi=(0, 0, 0)), "hi"),
    Case("geom.218", "box_mesh", "lo of 2 entries", lambda: G.box_mesh(lo=(0, 0)), "lo"),
    Case("geom.219", "box_mesh", "inf hi", lambda: G.box_mesh(hi=(float("inf"), 1, 1)), "hi"),
    Case("geom.220", "olat_scene", "zero lights", lambda: G.olat_scene(0, n_lights=0), "n_lights"),
    Case("geom.221", "olat_scene", "bad backend", lambda: G.olat_scene(0, backend="cuda"), "backend"),
    Case("geom.222", "olat_scene", "zero width", lambda: G.olat_scene(0, width=0), "width"),
    Case("geom.223", "olat_scene", "bad rng", lambda: G.olat_scene("seed"), "rng"),
    Case("geom.224", "driving_scene", "negative cars", lambda: G.driving_scene(0, n_cars=-1), "n_cars"),
    Case("geom.225", "driving_scene", "zero voxel", lambda: G.driving_scene(0, voxel=0.0), "voxel"),
    Case("geom.226", "driving_scene", "zero beams", lambda: G.driving_scene(0, n_beams=0), "n_beams"),
    Case("geom.227", "driving_scene", "bad rng", lambda: G.driving_scene(rng=-3), "rng"),
    Case("geom.228", "human_video", "zero frames", lambda: G.human_video(0, n_frames=0), "n_frames"),
    Case("geom.229", "human_video", "negative fps", lambda: G.human_video(0, fps=-1.0), "fps"),
    Case("geom.230", "human_video", "negative contact tol", lambda: G.human_video(0, contact_tol=-0.1), "contact_tol"),
    Case("geom.231", "human_video", "bad rng", lambda: G.human_video(rng=1.5), "rng"),
    # ---- mocap
    Case("geom.232", "load_deepmimic_clip", "unknown clip", lambda: G.load_deepmimic_clip("moonwalk"), "name"),
    Case("geom.233", "load_deepmimic_clip", "not a string", lambda: G.load_deepmimic_clip(3), "name"),
    Case("geom.234", "deepmimic_forward_kinematics", "unknown clip", lambda: G.deepmimic_forward_kinematics("moonwalk"), "clip"),
    Case("geom.235", "deepmimic_forward_kinematics", "frames of wrong width",
         lambda: G.deepmimic_forward_kinematics({"frames": np.zeros((4, 10))}), "clip"),
    Case("geom.236", "deepmimic_forward_kinematics", "not a clip", lambda: G.deepmimic_forward_kinematics(3.0), "clip"),
    Case("geom.237", "deepmimic_forward_kinematics", "NaN frames",
         lambda: G.deepmimic_forward_kinematics({"frames": np.full((4, 44), NAN)}), "clip"),
    Case("geom.238", "MotionFK.joint", "unknown body",
         lambda: G.deepmimic_forward_kinematics("walk").joint("tail"), "body"),
    Case("geom.239", "load_humanoid_skeleton", "unknown model", lambda: G.load_humanoid_skeleton("mujoco/octopus"), "name"),
    Case("geom.240", "load_mujoco_model", "unknown model", lambda: G.load_mujoco_model("nope"), "name"),
    Case("geom.241", "Skeleton.index", "unknown body", lambda: _skel().index("tail"), "body"),
    Case("geom.242", "Skeleton.children", "unknown body", lambda: _skel().children("tail"), "body"),
    Case("geom.243", "Skeleton.forward_kinematics", "qpos wrong length",
         lambda: _skel().forward_kinematics(np.zeros(3)), "qpos"),
    Case("geom.244", "Skeleton.forward_kinematics", "NaN qpos",
         lambda: _skel().forward_kinematics(np.full(_skel().nq, NAN)), "qpos"),
    Case("geom.245", "Skeleton.forward_kinematics", "zero root quaternion",
         lambda: _skel().forward_kinematics(np.concatenate([np.zeros(3), np.zeros(4), np.zeros(_skel().nq - 7)])), "qpos"),
    Case("geom.246", "Joint", "unknown joint type", lambda: G.Joint("j", "screw"), "type"),
    Case("geom.247", "Joint", "zero axis", lambda: G.Joint("j", "hinge", axis=(0.0, 0.0, 0.0)), "axis"),
    Case("geom.248", "Joint", "range low above high", lambda: G.Joint("j", "hinge", range=(1.0, -1.0)), "range"),
    # ---- the shared validators
    Case("geom.249", "check_rotation", "scaled identity", lambda: G.check_rotation(2 * I3), "R"),
    Case("geom.250", "check_rotation", "reflection, custom name", lambda: G.check_rotation(REFL, "pose"), "pose"),
    Case("geom.251", "check_rotation", "shear", lambda: G.check_rotation(torch.tensor([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]])),
         "R"),
    Case("geom.252", "check_rotation", "NaN", lambda: G.check_rotation(torch.full((3, 3), NAN)), "R"),
    Case("geom.253", "check_rigid", "bottom row wrong", lambda: G.check_rigid(T_BAD_ROW), "T"),
    Case("geom.254", "check_rigid", "scaled block", lambda: G.check_rigid(T_SCALED), "T"),
    Case("geom.255", "check_rigid", "3x4 matrix", lambda: G.check_rigid(torch.zeros(3, 4)), "T"),
]
