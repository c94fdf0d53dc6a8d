"""Bad-input sweep cases for iclr26sci.opticalflow (format: tests/bad_input_sweep.py).

One case per precondition per public name: shapes, dtypes and finiteness, image ranges ([0, 1] images), value
ranges, option strings, rotations and intrinsics, model sizes before torch sees them, devices, empty inputs,
and the random functions' ``rng``.
"""
import functools

import numpy as np

from bad_input_sweep import Case

K = np.array([[30.0, 0, 16], [0, 30.0, 12], [0, 0, 1]])
D = np.ones((24, 32))
I3 = np.eye(3)
T0 = np.zeros(3)
IMG = np.random.default_rng(0).random((24, 32))
RGB = np.random.default_rng(1).random((16, 16, 3))


def of():
    import iclr26sci.opticalflow as m

    return m


def torch():
    import torch as t

    return t


def _zeros(*shape):
    return torch().zeros(*shape)


@functools.lru_cache(maxsize=1)
def _pairs():
    return of().crossmodal_pairs(n=2, size=16, rng=0)


@functools.lru_cache(maxsize=1)
def _model():
    return of().DCFlow(batch_size=2, rng=0).fit(_pairs(), steps=1)


def _pairs_with(**kw):
    p = _pairs()
    d = dict(image_a=p.image_a, image_b=p.image_b, flow=p.flow, mask=p.mask)
    d.update(kw)

    class P:  # a duck-typed pairs object (skips CrossModalPairs' own checks)
        pass

    o = P()
    for k, v in d.items():
        setattr(o, k, v)
    o.depth_a = o.depth_b = None
    return o


def _bad_shape_net():
    t = torch()

    class Bad(t.nn.Module):
        def forward(self, a, b):
            return a[:, :1]
    return Bad()


def _one_channel_translator():
    return torch().nn.Conv2d(1, 3, 3, padding=1)


def _fit(**kw):
    return of().DCFlow(batch_size=2, **kw).fit(_pairs(), steps=1)


def _gflow(**kw):
    a = {"depth": D, "K": K, "R": I3, "t": T0, **kw}
    return of().geometric_flow(a["depth"], a["K"], a["R"], a["t"], **{k: v for k, v in kw.items()
                                                                      if k not in ("depth", "K", "R", "t")})


def _synth(**kw):
    a = {"image": IMG, "depth": D, "K": K, "R": I3, "t": T0}
    extra = {k: v for k, v in kw.items() if k not in a}
    a.update({k: v for k, v in kw.items() if k in a})
    return of().synthesize_view(a["image"], a["depth"], a["K"], a["R"], a["t"], **extra)


def _bad_tensor_like(x):
    return x


def _outside(name):
    """A path in a fresh folder outside the sweep's working directory (which must stay empty)."""
    import tempfile
    import pathlib

    return pathlib.Path(tempfile.mkdtemp(prefix="of-bad-")) / name


def _bad_file(name, payload):
    p = _outside(name)
    p.write_bytes(payload)
    return p


def _png8():
    from PIL import Image

    p = _outside("eight.png")
    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(p)
    return p


def _paired_dirs(extra_a=None, b_shape=(4, 5), empty_b=False):
    from PIL import Image

    root = _outside("pairs")
    root.mkdir()
    (root / "a").mkdir()
    (root / "b").mkdir()
    for n in ["0001"] + ([extra_a] if extra_a else []):
        Image.fromarray(np.zeros((4, 5, 3), np.uint8)).save(root / "a" / f"{n}.png")
    if not empty_b:
        Image.fromarray(np.zeros(b_shape, np.uint8)).save(root / "b" / "0001.png")
    return root / "a", root / "b"


CASES = [
    # ------------------------------------------------------------------ geometric_flow
    Case("opticalflow.001", "geometric_flow", "zero depth", lambda: _gflow(depth=np.zeros((24, 32))), ("depth",)),
    Case("opticalflow.002", "geometric_flow", "NaN depth", lambda: _gflow(depth=np.full((24, 32), np.nan)), ("depth",)),
    Case("opticalflow.003", "geometric_flow", "1-D depth", lambda: _gflow(depth=np.ones(5)), ("depth",)),
    Case("opticalflow.004", "geometric_flow", "string depth", lambda: _gflow(depth="abc"), ("depth",)),
    Case("opticalflow.005", "geometric_flow", "zero focal length", lambda: _gflow(K=np.diag([0.0, 30, 1])), ("K",)),
    Case("opticalflow.006", "geometric_flow", "2x2 K", lambda: _gflow(K=np.eye(2)), ("K",)),
    Case("opticalflow.007", "geometric_flow", "NaN in K", lambda: _gflow(K=np.where(K == 16, np.nan, K)), ("K",)),
    Case("opticalflow.008", "geometric_flow", "R = 2 I (not orthonormal)", lambda: _gflow(R=2 * I3), ("R",)),
    Case("opticalflow.009", "geometric_flow", "reflection R", lambda: _gflow(R=np.diag([1.0, 1, -1])), ("R",)),
    Case("opticalflow.010", "geometric_flow", "NaN R", lambda: _gflow(R=np.full((3, 3), np.nan)), ("R",)),
    Case("opticalflow.011", "geometric_flow", "t of length 2", lambda: _gflow(t=[1.0, 2.0]), ("t",)),
    Case("opticalflow.012", "geometric_flow", "infinite t", lambda: _gflow(t=[np.inf, 0, 0]), ("t",)),
    Case("opticalflow.013", "geometric_flow", "return_depth a string", lambda: _gflow(return_depth="yes"),
         ("return_depth",)),
    Case("opticalflow.014", "geometric_flow", "1x1 depth map", lambda: _gflow(depth=np.ones((1, 1))), ("depth",)),
    Case("opticalflow.015", "geometric_flow", "K with a non-zero bottom row", lambda: _gflow(
        K=np.array([[30.0, 0, 16], [0, 30, 12], [1, 0, 1]])), ("K",)),
    # ------------------------------------------------------------------ synthesize_view
    Case("opticalflow.016", "synthesize_view", "NaN image", lambda: _synth(image=np.full((24, 32), np.nan)),
         ("image",)),
    Case("opticalflow.017", "synthesize_view", "4-D image", lambda: _synth(image=np.zeros((1, 24, 32, 3))),
         ("image",)),
    Case("opticalflow.018", "synthesize_view", "image and depth of different sizes",
         lambda: _synth(image=np.zeros((10, 10))), ("depth", "image")),
    Case("opticalflow.019", "synthesize_view", "negative photometric_eps", lambda: _synth(photometric_eps=-1.0),
         ("photometric_eps",)),
    Case("opticalflow.020", "synthesize_view", "photometric_eps a string", lambda: _synth(photometric_eps="0.1"),
         ("photometric_eps",)),
    Case("opticalflow.021", "synthesize_view", "negative visibility_tol", lambda: _synth(visibility_tol=-0.1),
         ("visibility_tol",)),
    Case("opticalflow.022", "synthesize_view", "visibility_tol a string", lambda: _synth(visibility_tol="a"),
         ("visibility_tol",)),
    Case("opticalflow.023", "synthesize_view", "fill_holes = 1", lambda: _synth(fill_holes=1), ("fill_holes",)),
    Case("opticalflow.024", "synthesize_view", "R not a rotation", lambda: _synth(R=2 * I3), ("R",)),
    Case("opticalflow.025", "synthesize_view", "string image", lambda: _synth(image="img"), ("image",)),
    Case("opticalflow.026", "synthesize_view", "empty image", lambda: _synth(image=np.zeros((0, 0))),
         ("image", "depth")),
    # ------------------------------------------------------------------ random_camera_motion
    Case("opticalflow.027", "random_camera_motion", "negative seed", lambda: of().random_camera_motion(-1), ("rng",)),
    Case("opticalflow.028", "random_camera_motion", "string seed", lambda: of().random_camera_motion("a"), ("rng",)),
    Case("opticalflow.029", "random_camera_motion", "width 0", lambda: of().random_camera_motion(0, width=0),
         ("width",)),
    Case("opticalflow.030", "random_camera_motion", "float width", lambda: of().random_camera_motion(0, width=2.5),
         ("width",)),
    Case("opticalflow.031", "random_camera_motion", "negative height",
         lambda: of().random_camera_motion(0, height=-5), ("height",)),
    Case("opticalflow.032", "random_camera_motion", "median_depth 0",
         lambda: of().random_camera_motion(0, median_depth=0.0), ("median_depth",)),
    Case("opticalflow.033", "random_camera_motion", "reversed focal_range",
         lambda: of().random_camera_motion(0, focal_range=(1.3, 0.7)), ("focal_range",)),
    Case("opticalflow.034", "random_camera_motion", "focal_range reaching 0",
         lambda: of().random_camera_motion(0, focal_range=(0.0, 1.0)), ("focal_range",)),
    Case("opticalflow.035", "random_camera_motion", "negative max_angle_deg",
         lambda: of().random_camera_motion(0, max_angle_deg=-5.0), ("max_angle_deg",)),
    Case("opticalflow.036", "random_camera_motion", "NaN max_angle_deg",
         lambda: of().random_camera_motion(0, max_angle_deg=np.nan), ("max_angle_deg",)),
    Case("opticalflow.037", "random_camera_motion", "negative max_translation",
         lambda: of().random_camera_motion(0, max_translation=-1.0), ("max_translation",)),
    Case("opticalflow.038", "random_camera_motion", "negative forward_scale",
         lambda: of().random_camera_motion(0, forward_scale=-1.0), ("forward_scale",)),
    Case("opticalflow.039", "random_camera_motion", "max_angle_deg above 180",
         lambda: of().random_camera_motion(0, max_angle_deg=720.0), ("max_angle_deg",)),
    # ------------------------------------------------------------------ random_smooth_depth
    Case("opticalflow.040", "random_smooth_depth", "height 0", lambda: of().random_smooth_depth(0, 8), ("height",)),
    Case("opticalflow.041", "random_smooth_depth", "string width", lambda: of().random_smooth_depth(8, "8"),
         ("width",)),
    Case("opticalflow.042", "random_smooth_depth", "negative seed", lambda: of().random_smooth_depth(8, 8, -1),
         ("rng",)),
    Case("opticalflow.043", "random_smooth_depth", "base 0", lambda: of().random_smooth_depth(8, 8, 0, base=0.0),
         ("base",)),
    Case("opticalflow.044", "random_smooth_depth", "negative n_bumps",
         lambda: of().random_smooth_depth(8, 8, 0, n_bumps=-1), ("n_bumps",)),
    Case("opticalflow.045", "random_smooth_depth", "NaN relief", lambda: of().random_smooth_depth(8, 8, 0, relief=np.nan),
         ("relief",)),
    Case("opticalflow.046", "random_smooth_depth", "negative relief",
         lambda: of().random_smooth_depth(8, 8, 0, relief=-0.3), ("relief",)),
    Case("opticalflow.047", "random_smooth_depth", "height 1", lambda: of().random_smooth_depth(1, 8), ("height",)),
    # ------------------------------------------------------------------ modality_transform
    Case("opticalflow.048", "modality_transform", "unknown modality", lambda: of().modality_transform(RGB, "xray"),
         ("modality",)),
    Case("opticalflow.049", "modality_transform", "severity 2", lambda: of().modality_transform(RGB, severity=2.0),
         ("severity",)),
    Case("opticalflow.050", "modality_transform", "two channels", lambda: of().modality_transform(np.zeros((4, 4, 2))),
         ("image",)),
    Case("opticalflow.051", "modality_transform", "0-255 image", lambda: of().modality_transform(RGB * 255),
         ("image",)),
    Case("opticalflow.052", "modality_transform", "NaN image", lambda: of().modality_transform(np.full((8, 8, 3), np.nan)),
         ("image",)),
    Case("opticalflow.053", "modality_transform", "negative seed (lut)",
         lambda: of().modality_transform(RGB, "lut", rng=-1), ("rng",)),
    Case("opticalflow.054", "modality_transform", "RGBA image", lambda: of().modality_transform(np.zeros((8, 8, 4))),
         ("image",)),
    Case("opticalflow.055", "modality_transform", "empty image", lambda: of().modality_transform(np.zeros((0, 0, 3))),
         ("image",)),
    Case("opticalflow.056", "modality_transform", "severity a string",
         lambda: of().modality_transform(RGB, severity="1"), ("severity",)),
    Case("opticalflow.057", "modality_transform", "negative image", lambda: of().modality_transform(-RGB),
         ("image",)),
    # ------------------------------------------------------------------ random_affine
    Case("opticalflow.058", "random_affine", "negative seed", lambda: of().random_affine(-3), ("rng",)),
    Case("opticalflow.059", "random_affine", "negative max_rotation_deg",
         lambda: of().random_affine(0, max_rotation_deg=-1.0), ("max_rotation_deg",)),
    Case("opticalflow.060", "random_affine", "reversed scale_range",
         lambda: of().random_affine(0, scale_range=(1.1, 0.9)), ("scale_range",)),
    Case("opticalflow.061", "random_affine", "scale_range reaching 0",
         lambda: of().random_affine(0, scale_range=(0.0, 1.0)), ("scale_range",)),
    Case("opticalflow.062", "random_affine", "NaN max_shear", lambda: of().random_affine(0, max_shear=np.nan),
         ("max_shear",)),
    Case("opticalflow.063", "random_affine", "negative max_translation",
         lambda: of().random_affine(0, max_translation=-1.0), ("max_translation",)),
    Case("opticalflow.064", "random_affine", "3-element center", lambda: of().random_affine(0, center=(1, 2, 3)),
         ("center",)),
    Case("opticalflow.065", "random_affine", "NaN center", lambda: of().random_affine(0, center=(np.nan, 1.0)),
         ("center",)),
    Case("opticalflow.066", "random_affine", "shear of 1 (singular possible)",
         lambda: of().random_affine(0, max_shear=5.0), ("max_shear",)),
    # ------------------------------------------------------------------ warp_affine
    Case("opticalflow.067", "warp_affine", "singular M", lambda: of().warp_affine(np.zeros((4, 4)), np.diag([0, 0, 1.0])),
         ("M",)),
    Case("opticalflow.068", "warp_affine", "2x2 M", lambda: of().warp_affine(np.zeros((4, 4)), np.eye(2)), ("M",)),
    Case("opticalflow.069", "warp_affine", "NaN M", lambda: of().warp_affine(np.zeros((4, 4)), np.full((3, 3), np.nan)),
         ("M",)),
    Case("opticalflow.070", "warp_affine", "1-D image", lambda: of().warp_affine(np.zeros(4), I3), ("image",)),
    Case("opticalflow.071", "warp_affine", "NaN image", lambda: of().warp_affine(np.full((4, 4), np.nan), I3),
         ("image",)),
    Case("opticalflow.072", "warp_affine", "3-D tensor", lambda: of().warp_affine(_zeros(3, 4, 4), I3), ("image",)),
    Case("opticalflow.073", "warp_affine", "string image", lambda: of().warp_affine("img", I3), ("image",)),
    Case("opticalflow.074", "warp_affine", "NaN tensor image",
         lambda: of().warp_affine(torch().full((1, 1, 4, 4), float("nan")), I3), ("image",)),
    Case("opticalflow.075", "warp_affine", "empty image", lambda: of().warp_affine(np.zeros((0, 4)), I3), ("image",)),
    # ------------------------------------------------------------------ affine_flow
    Case("opticalflow.076", "affine_flow", "2x2 M", lambda: of().affine_flow(np.eye(2), 4, 4), ("M",)),
    Case("opticalflow.077", "affine_flow", "height 0", lambda: of().affine_flow(I3, 0, 4), ("height",)),
    Case("opticalflow.078", "affine_flow", "float width", lambda: of().affine_flow(I3, 4, 2.5), ("width",)),
    Case("opticalflow.079", "affine_flow", "string height", lambda: of().affine_flow(I3, "4", 4), ("height",)),
    Case("opticalflow.080", "affine_flow", "negative width", lambda: of().affine_flow(I3, 4, -4), ("width",)),
    # ------------------------------------------------------------------ compose_affine_flow
    Case("opticalflow.081", "compose_affine_flow", "3 flow channels",
         lambda: of().compose_affine_flow(np.zeros((4, 4, 3)), I3, I3), ("flow",)),
    Case("opticalflow.082", "compose_affine_flow", "NaN flow",
         lambda: of().compose_affine_flow(np.full((4, 4, 2), np.nan), I3, I3), ("flow",)),
    Case("opticalflow.083", "compose_affine_flow", "M_a of ones (bottom row)",
         lambda: of().compose_affine_flow(np.zeros((4, 4, 2)), np.ones((3, 3)), I3), ("M_a",)),
    Case("opticalflow.084", "compose_affine_flow", "singular M_b",
         lambda: of().compose_affine_flow(np.zeros((4, 4, 2)), I3, np.diag([0, 1, 1.0])), ("M_b",)),
    Case("opticalflow.085", "compose_affine_flow", "tensor with 3 channels",
         lambda: of().compose_affine_flow(_zeros(1, 3, 4, 4), I3, I3), ("flow",)),
    Case("opticalflow.086", "compose_affine_flow", "string flow",
         lambda: of().compose_affine_flow("flow", I3, I3), ("flow",)),
    Case("opticalflow.087", "compose_affine_flow", "infinite tensor flow",
         lambda: of().compose_affine_flow(torch().full((1, 2, 4, 4), float("inf")), I3, I3), ("flow",)),
    # ------------------------------------------------------------------ trimmed_l1
    Case("opticalflow.088", "trimmed_l1", "trim 0.5", lambda: of().trimmed_l1(_zeros(1, 2, 4, 4), _zeros(1, 2, 4, 4),
                                                                               trim=0.5), ("trim",)),
    Case("opticalflow.089", "trimmed_l1", "NaN trim", lambda: of().trimmed_l1(_zeros(1, 2, 4, 4), _zeros(1, 2, 4, 4),
                                                                               trim=np.nan), ("trim",)),
    Case("opticalflow.090", "trimmed_l1", "numpy pred", lambda: of().trimmed_l1(np.zeros((1, 2, 4, 4)),
                                                                                 _zeros(1, 2, 4, 4)), ("pred",)),
    Case("opticalflow.091", "trimmed_l1", "3-channel pred", lambda: of().trimmed_l1(_zeros(1, 3, 4, 4),
                                                                                     _zeros(1, 3, 4, 4)), ("pred",)),
    Case("opticalflow.092", "trimmed_l1", "target of another size",
         lambda: of().trimmed_l1(_zeros(1, 2, 4, 4), _zeros(1, 2, 4, 5)), ("target",)),
    Case("opticalflow.093", "trimmed_l1", "mask of the wrong shape",
         lambda: of().trimmed_l1(_zeros(1, 2, 4, 4), _zeros(1, 2, 4, 4), torch().ones(1, 3, 3, dtype=torch().bool)),
         ("mask",)),
    Case("opticalflow.094", "trimmed_l1", "NaN target",
         lambda: of().trimmed_l1(_zeros(1, 2, 4, 4), torch().full((1, 2, 4, 4), float("nan"))), ("target",)),
    Case("opticalflow.095", "trimmed_l1", "mask with values 0.5",
         lambda: of().trimmed_l1(_zeros(1, 2, 4, 4), _zeros(1, 2, 4, 4), torch().full((1, 4, 4), 0.5)), ("mask",)),
    Case("opticalflow.096", "trimmed_l1", "trim a string",
         lambda: of().trimmed_l1(_zeros(1, 2, 4, 4), _zeros(1, 2, 4, 4), trim="0.1"), ("trim",)),
    # ------------------------------------------------------------------ flow_metrics
    Case("opticalflow.097", "flow_metrics", "shapes differ",
         lambda: of().flow_metrics(np.zeros((4, 4, 2)), np.zeros((4, 5, 2))), ("gt", "flow")),
    Case("opticalflow.098", "flow_metrics", "mask marks nothing",
         lambda: of().flow_metrics(np.zeros((4, 4, 2)), np.zeros((4, 4, 2)), np.zeros((4, 4), bool)), ("mask",)),
    Case("opticalflow.099", "flow_metrics", "NaN flow",
         lambda: of().flow_metrics(np.full((4, 4, 2), np.nan), np.zeros((4, 4, 2))), ("flow",)),
    Case("opticalflow.100", "flow_metrics", "mask of the wrong shape",
         lambda: of().flow_metrics(np.zeros((4, 4, 2)), np.zeros((4, 4, 2)), np.ones((3, 3), bool)), ("mask",)),
    Case("opticalflow.101", "flow_metrics", "3 flow channels",
         lambda: of().flow_metrics(np.zeros((4, 4, 3)), np.zeros((4, 4, 3))), ("flow", "gt")),
    Case("opticalflow.102", "flow_metrics", "ground truth all NaN",
         lambda: of().flow_metrics(np.zeros((4, 4, 2)), np.full((4, 4, 2), np.nan)), ("gt", "mask")),
    Case("opticalflow.103", "flow_metrics", "string flow", lambda: of().flow_metrics("f", np.zeros((4, 4, 2))),
         ("flow",)),
    Case("opticalflow.104", "flow_metrics", "mask with values 2",
         lambda: of().flow_metrics(np.zeros((4, 4, 2)), np.zeros((4, 4, 2)), np.full((4, 4), 2.0)), ("mask",)),
    # ------------------------------------------------------------------ FlowNet
    Case("opticalflow.105", "FlowNet", "unknown architecture", lambda: of().FlowNet("flownet2"), ("net",)),
    Case("opticalflow.106", "FlowNet", "integer net", lambda: of().FlowNet(3), ("net",)),
    Case("opticalflow.107", "FlowNet", "keyword arguments with a user module",
         lambda: of().FlowNet(of().TinyUNet(), width=3), ("kwargs", "width")),
    Case("opticalflow.108", "FlowNet", "unknown keyword for the built-in net",
         lambda: of().FlowNet("pwc_tiny", foo=1), ("kwargs", "foo")),
    Case("opticalflow.109", "FlowNet", "width 0 for the built-in net",
         lambda: of().FlowNet("pwc_tiny", width=0), ("width",)),
    Case("opticalflow.110", "FlowNet.forward", "images of different sizes",
         lambda: of().FlowNet()(_zeros(1, 3, 16, 16), _zeros(1, 3, 16, 32)), ("img2",)),
    Case("opticalflow.111", "FlowNet.forward", "3-D tensors",
         lambda: of().FlowNet()(_zeros(3, 16, 16), _zeros(3, 16, 16)), ("img1", "img2")),
    Case("opticalflow.112", "FlowNet.forward", "numpy images",
         lambda: of().FlowNet()(np.zeros((1, 3, 16, 16)), np.zeros((1, 3, 16, 16))), ("img1",)),
    Case("opticalflow.113", "FlowNet.forward", "NaN image",
         lambda: of().FlowNet()(torch().full((1, 3, 16, 16), float("nan")), _zeros(1, 3, 16, 16)), ("img1",)),
    Case("opticalflow.114", "FlowNet.forward", "0-255 image",
         lambda: of().FlowNet()(_zeros(1, 3, 16, 16), 255 * torch().ones(1, 3, 16, 16)), ("img2",)),
    Case("opticalflow.115", "FlowNet.forward", "1-channel images",
         lambda: of().FlowNet()(_zeros(1, 1, 16, 16), _zeros(1, 1, 16, 16)), ("img1",)),
    Case("opticalflow.116", "FlowNet.forward", "a net returning the wrong shape",
         lambda: of().FlowNet(_bad_shape_net())(_zeros(1, 3, 16, 16), _zeros(1, 3, 16, 16)), ("net",)),
    Case("opticalflow.117", "FlowNet.crop_predictions", "H = 0", lambda: of().FlowNet().crop_predictions(0, 4), ("H",)),
    Case("opticalflow.118", "FlowNet.crop_predictions", "float W",
         lambda: of().FlowNet().crop_predictions(4, 2.5), ("W",)),
    Case("opticalflow.119", "FlowNet.forward", "empty batch",
         lambda: of().FlowNet()(_zeros(0, 3, 16, 16), _zeros(0, 3, 16, 16)), ("img1",)),
    # ------------------------------------------------------------------ TinyPWC / RAFTSmall / TinyUNet
    Case("opticalflow.120", "TinyPWC", "width 0", lambda: of().TinyPWC(width=0), ("width",)),
    Case("opticalflow.121", "TinyPWC", "negative radius", lambda: of().TinyPWC(radius=-1), ("radius",)),
    Case("opticalflow.122", "TinyPWC", "finest 2", lambda: of().TinyPWC(finest=2), ("finest",)),
    Case("opticalflow.123", "TinyPWC.forward", "size not a multiple of 8",
         lambda: of().TinyPWC()(_zeros(1, 3, 30, 30), _zeros(1, 3, 30, 30)), ("img1",)),
    Case("opticalflow.124", "TinyPWC.forward", "2-channel images",
         lambda: of().TinyPWC()(_zeros(1, 2, 32, 32), _zeros(1, 2, 32, 32)), ("img1",)),
    Case("opticalflow.125", "TinyPWC", "float width", lambda: of().TinyPWC(width=7.5), ("width",)),
    Case("opticalflow.126", "RAFTSmall", "dim 0", lambda: of().RAFTSmall(dim=0), ("dim",)),
    Case("opticalflow.127", "RAFTSmall", "iters 0", lambda: of().RAFTSmall(iters=0), ("iters",)),
    Case("opticalflow.128", "RAFTSmall", "levels 0", lambda: of().RAFTSmall(levels=0), ("levels",)),
    Case("opticalflow.129", "RAFTSmall", "negative radius", lambda: of().RAFTSmall(radius=-1), ("radius",)),
    Case("opticalflow.130", "RAFTSmall.forward", "size not a multiple of 8",
         lambda: of().RAFTSmall(iters=1)(_zeros(1, 3, 30, 30), _zeros(1, 3, 30, 30)), ("img1",)),
    Case("opticalflow.131", "RAFTSmall.forward", "images of different sizes",
         lambda: of().RAFTSmall(iters=1)(_zeros(1, 3, 32, 32), _zeros(1, 3, 16, 16)), ("img2",)),
    Case("opticalflow.132", "TinyUNet", "width 0", lambda: of().TinyUNet(width=0), ("width",)),
    Case("opticalflow.133", "TinyUNet.forward", "3-D input", lambda: of().TinyUNet()(_zeros(3, 16, 16)), ("x",)),
    Case("opticalflow.134", "TinyUNet.forward", "2-channel input", lambda: of().TinyUNet()(_zeros(1, 2, 16, 16)),
         ("x",)),
    Case("opticalflow.135", "TinyUNet.forward", "NaN input",
         lambda: of().TinyUNet()(torch().full((1, 3, 16, 16), float("nan"))), ("x",)),
    # ------------------------------------------------------------------ crossmodal_pairs
    Case("opticalflow.136", "crossmodal_pairs", "unknown modality",
         lambda: of().crossmodal_pairs(modality="x", n=2, size=16), ("modality",)),
    Case("opticalflow.137", "crossmodal_pairs", "n 0", lambda: of().crossmodal_pairs(n=0, size=16), ("n",)),
    Case("opticalflow.138", "crossmodal_pairs", "size 8", lambda: of().crossmodal_pairs(n=2, size=8), ("size",)),
    Case("opticalflow.139", "crossmodal_pairs", "unknown source", lambda: of().crossmodal_pairs("web", n=2, size=16),
         ("source",)),
    Case("opticalflow.140", "crossmodal_pairs", "negative seed", lambda: of().crossmodal_pairs(n=2, size=16, rng=-2),
         ("rng",)),
    Case("opticalflow.141", "crossmodal_pairs", "unknown misalign key",
         lambda: of().crossmodal_pairs(n=2, size=16, misalign={"foo": 1}), ("misalign",)),
    Case("opticalflow.142", "crossmodal_pairs", "misalign scale range reaching 0",
         lambda: of().crossmodal_pairs(n=2, size=16, misalign={"scale_range": (0.0, 1.0)}),
         ("misalign", "scale_range")),
    Case("opticalflow.143", "crossmodal_pairs", "0-255 source images",
         lambda: of().crossmodal_pairs(np.full((2, 60, 60, 3), 200.0), n=2, size=16), ("source",)),
    Case("opticalflow.144", "crossmodal_pairs", "NaN source",
         lambda: of().crossmodal_pairs(np.full((2, 60, 60), np.nan), n=2, size=16), ("source",)),
    Case("opticalflow.145", "crossmodal_pairs", "zero depth",
         lambda: of().crossmodal_pairs(np.zeros((2, 60, 60)), n=2, size=16, depth=np.zeros((2, 60, 60))), ("depth",)),
    Case("opticalflow.146", "crossmodal_pairs", "depth of the wrong shape",
         lambda: of().crossmodal_pairs(np.zeros((2, 60, 60)), n=2, size=16, depth=np.ones((1, 4, 4))), ("depth",)),
    Case("opticalflow.147", "crossmodal_pairs", "severity 2",
         lambda: of().crossmodal_pairs(n=2, size=16, severity=2.0), ("severity",)),
    Case("opticalflow.148", "crossmodal_pairs", "float n", lambda: of().crossmodal_pairs(n=2.0, size=16), ("n",)),
    Case("opticalflow.149", "crossmodal_pairs", "source images too small",
         lambda: of().crossmodal_pairs(np.zeros((2, 10, 10)), n=2, size=16), ("source",)),
    Case("opticalflow.150", "crossmodal_pairs", "misalign not a dict",
         lambda: of().crossmodal_pairs(n=2, size=16, misalign=[1, 2]), ("misalign",)),
    Case("opticalflow.151", "crossmodal_pairs", "empty source array",
         lambda: of().crossmodal_pairs(np.zeros((0, 60, 60)), n=2, size=16), ("source",)),
    # ------------------------------------------------------------------ motorcycle_pair / texture_images
    Case("opticalflow.152", "motorcycle_pair", "unknown modality", lambda: of().motorcycle_pair("radar"),
         ("modality",)),
    Case("opticalflow.153", "motorcycle_pair", "width 5000", lambda: of().motorcycle_pair(width=5000), ("width",)),
    Case("opticalflow.154", "motorcycle_pair", "negative severity", lambda: of().motorcycle_pair(severity=-1.0),
         ("severity",)),
    Case("opticalflow.155", "motorcycle_pair", "negative seed", lambda: of().motorcycle_pair("lut", rng=-1), ("rng",)),
    Case("opticalflow.156", "motorcycle_pair", "float width", lambda: of().motorcycle_pair(width=64.0), ("width",)),
    Case("opticalflow.157", "texture_images", "longest 0", lambda: of().texture_images(0), ("longest",)),
    Case("opticalflow.158", "texture_images", "string longest", lambda: of().texture_images("64"), ("longest",)),
    Case("opticalflow.159", "texture_images", "longest 4 (below 8 px)", lambda: of().texture_images(4), ("longest",)),
    # ------------------------------------------------------------------ DCFlow (constructor and fit)
    Case("opticalflow.160", "DCFlow", "unknown objective", lambda: of().DCFlow(objective="photo"), ("objective",)),
    Case("opticalflow.161", "DCFlow", "consistency = 1", lambda: of().DCFlow(consistency=1), ("consistency",)),
    Case("opticalflow.162", "DCFlow", "negative lambda_T", lambda: of().DCFlow(lambda_T=-1.0), ("lambda_T",)),
    Case("opticalflow.163", "DCFlow", "infinite lambda_C", lambda: of().DCFlow(lambda_C=np.inf), ("lambda_C",)),
    Case("opticalflow.164", "DCFlow", "consistency_start 1", lambda: of().DCFlow(consistency_start=1.0),
         ("consistency_start",)),
    Case("opticalflow.165", "DCFlow", "unknown depth mode", lambda: of().DCFlow(depth="gt"), ("depth",)),
    Case("opticalflow.166", "DCFlow", "batch_size 0", lambda: of().DCFlow(batch_size=0), ("batch_size",)),
    Case("opticalflow.167", "DCFlow", "lr 0", lambda: of().DCFlow(lr=0.0), ("lr",)),
    Case("opticalflow.168", "DCFlow", "negative seed", lambda: of().DCFlow(rng=-1), ("rng",)),
    Case("opticalflow.169", "DCFlow", "unknown device", lambda: of().DCFlow(device="tpu:9"), ("device",)),
    Case("opticalflow.170", "DCFlow", "unknown net", lambda: of().DCFlow(net="vgg"), ("net",)),
    Case("opticalflow.171", "DCFlow", "translator a string", lambda: of().DCFlow(translator="unet"), ("translator",)),
    Case("opticalflow.172", "DCFlow", "photometric_eps 0", lambda: of().DCFlow(photometric_eps=0.0),
         ("photometric_eps",)),
    Case("opticalflow.173", "DCFlow", "unknown lr_schedule", lambda: of().DCFlow(lr_schedule="cosine"),
         ("lr_schedule",)),
    Case("opticalflow.174", "DCFlow", "translator_warmup 1", lambda: of().DCFlow(translator_warmup=1.0),
         ("translator_warmup",)),
    Case("opticalflow.175", "DCFlow", "trim 0.6", lambda: of().DCFlow(trim=0.6), ("trim",)),
    Case("opticalflow.176", "DCFlow", "NaN smooth_weight", lambda: of().DCFlow(smooth_weight=np.nan),
         ("smooth_weight",)),
    Case("opticalflow.177", "DCFlow", "negative max_angle_deg", lambda: of().DCFlow(max_angle_deg=-1.0),
         ("max_angle_deg",)),
    Case("opticalflow.178", "DCFlow", "cuda device on a machine without it (or a bad index)",
         lambda: of().DCFlow(device="cuda:99"), ("device",)),
    Case("opticalflow.179", "DCFlow.fit", "pairs a string", lambda: of().DCFlow().fit("images"), ("pairs",)),
    Case("opticalflow.180", "DCFlow.fit", "steps 0", lambda: of().DCFlow().fit(_pairs(), steps=0), ("steps",)),
    Case("opticalflow.181", "DCFlow.fit", "float epochs", lambda: of().DCFlow().fit(_pairs(), epochs=1.5),
         ("epochs",)),
    Case("opticalflow.182", "DCFlow.fit", "depth='pairs' without depth maps",
         lambda: of().DCFlow(depth="pairs").fit(_pairs(), steps=1), ("depth",)),
    Case("opticalflow.183", "DCFlow.fit", "0-255 images",
         lambda: of().DCFlow().fit(_pairs_with(image_a=_pairs().image_a * 255), steps=1), ("pairs",)),
    Case("opticalflow.184", "DCFlow.fit", "NaN images",
         lambda: of().DCFlow().fit(_pairs_with(image_b=_pairs().image_b * np.nan), steps=1), ("pairs",)),
    Case("opticalflow.185", "DCFlow.fit", "images smaller than 16 px",
         lambda: of().DCFlow().fit(_pairs_with(image_a=np.zeros((2, 8, 8, 3)), image_b=np.zeros((2, 8, 8))), steps=1),
         ("pairs",)),
    Case("opticalflow.186", "DCFlow.fit", "translator taking 1 channel",
         lambda: _fit(translator=_one_channel_translator()), ("translator",)),
    Case("opticalflow.187", "DCFlow.fit", "net returning the wrong shape", lambda: _fit(net=_bad_shape_net()),
         ("net",)),
    Case("opticalflow.188", "DCFlow.fit", "image_a and image_b of different sizes",
         lambda: of().DCFlow().fit(_pairs_with(image_b=np.zeros((2, 16, 20))), steps=1), ("pairs",)),
    Case("opticalflow.189", "DCFlow.fit", "no pairs", lambda: of().DCFlow().fit(
        _pairs_with(image_a=np.zeros((0, 16, 16, 3)), image_b=np.zeros((0, 16, 16))), steps=1), ("pairs",)),
    Case("opticalflow.190", "DCFlow.predict", "not fitted",
         lambda: of().DCFlow().predict(np.zeros((16, 16, 3)), np.zeros((16, 16))), ("DCFlow.predict",)),
    Case("opticalflow.191", "DCFlow.predict", "images of different sizes",
         lambda: _model().predict(np.zeros((16, 16, 3)), np.zeros((16, 20))), ("image_b",)),
    Case("opticalflow.192", "DCFlow.predict", "4 channels",
         lambda: _model().predict(np.zeros((16, 16, 4)), np.zeros((16, 16))), ("image_a",)),
    Case("opticalflow.193", "DCFlow.predict", "NaN image_b",
         lambda: _model().predict(np.zeros((16, 16, 3)), np.full((16, 16), np.nan)), ("image_b",)),
    Case("opticalflow.194", "DCFlow.predict", "0-255 image_a",
         lambda: _model().predict(np.full((16, 16, 3), 255.0), np.zeros((16, 16))), ("image_a",)),
    Case("opticalflow.195", "DCFlow.predict", "string image",
         lambda: _model().predict("a.png", np.zeros((16, 16))), ("image_a",)),
    Case("opticalflow.196", "DCFlow.fit", "1-D image_b", lambda: of().DCFlow().fit(
        _pairs_with(image_b=np.zeros(5)), steps=1), ("pairs",)),
    # ------------------------------------------------------------------ appearance_only
    Case("opticalflow.197", "appearance_only", "objective given again",
         lambda: of().appearance_only(objective="decoupled"), ("objective",)),
    Case("opticalflow.198", "appearance_only", "unknown keyword", lambda: of().appearance_only(foo=1),
         ("foo", "kwargs")),
    Case("opticalflow.199", "appearance_only", "unknown net", lambda: of().appearance_only("vgg"), ("net",)),
    Case("opticalflow.200", "appearance_only", "negative smooth_weight",
         lambda: of().appearance_only(smooth_weight=-1.0), ("smooth_weight",)),
    # ------------------------------------------------------------------ structural_loss
    Case("opticalflow.201", "structural_loss", "numpy a",
         lambda: of().structural_loss(np.zeros((1, 3, 16, 16)), _zeros(1, 3, 16, 16)), ("a",)),
    Case("opticalflow.202", "structural_loss", "shapes differ",
         lambda: of().structural_loss(_zeros(1, 3, 16, 16), _zeros(1, 3, 16, 8)), ("b",)),
    Case("opticalflow.203", "structural_loss", "valid of the wrong shape",
         lambda: of().structural_loss(_zeros(1, 3, 16, 16), _zeros(1, 3, 16, 16), _zeros(1, 1, 8, 8)), ("valid",)),
    Case("opticalflow.204", "structural_loss", "scales 0",
         lambda: of().structural_loss(_zeros(1, 3, 16, 16), _zeros(1, 3, 16, 16), scales=0), ("scales",)),
    Case("opticalflow.205", "structural_loss", "NaN a",
         lambda: of().structural_loss(torch().full((1, 3, 16, 16), float("nan")), _zeros(1, 3, 16, 16)), ("a",)),
    Case("opticalflow.206", "structural_loss", "3-D a",
         lambda: of().structural_loss(_zeros(3, 16, 16), _zeros(3, 16, 16)), ("a",)),
    Case("opticalflow.207", "structural_loss", "too small for the scales",
         lambda: of().structural_loss(_zeros(1, 3, 4, 4), _zeros(1, 3, 4, 4), scales=4), ("a", "scales")),
    # ------------------------------------------------------------------ classical_flow
    Case("opticalflow.208", "classical_flow", "unknown method", lambda: of().classical_flow(IMG, IMG, "lk"),
         ("method",)),
    Case("opticalflow.209", "classical_flow", "images of different sizes",
         lambda: of().classical_flow(np.zeros((16, 16)), np.zeros((16, 17))), ("image_b",)),
    Case("opticalflow.210", "classical_flow", "0-255 images (documented [0, 1])",
         lambda: of().classical_flow(IMG * 255, np.roll(IMG, 2, 1) * 255, "dis"), ("image_a",)),
    Case("opticalflow.211", "classical_flow", "NaN image", lambda: of().classical_flow(IMG, IMG * np.nan),
         ("image_b",)),
    Case("opticalflow.212", "classical_flow", "1-D image", lambda: of().classical_flow(np.zeros(8), np.zeros(8)),
         ("image_a",)),
    Case("opticalflow.213", "classical_flow", "negative image_b", lambda: of().classical_flow(IMG, -IMG),
         ("image_b",)),
    Case("opticalflow.214", "classical_flow", "2x2 images", lambda: of().classical_flow(np.zeros((2, 2)),
                                                                                         np.zeros((2, 2))),
         ("image_a",)),
    Case("opticalflow.215", "classical_flow", "RGBA image", lambda: of().classical_flow(np.zeros((8, 8, 4)),
                                                                                        np.zeros((8, 8, 4))),
         ("image_a",)),
    Case("opticalflow.216", "classical_flow", "string image", lambda: of().classical_flow("a", IMG), ("image_a",)),
    # ------------------------------------------------------------------ result containers built by hand
    Case("opticalflow.217", "SynthResult", "flow of the wrong shape",
         lambda: of().SynthResult(IMG, IMG, np.zeros((24, 32, 3)), np.ones((24, 32), bool), D), ("flow",)),
    Case("opticalflow.218", "SynthResult", "mask of another size",
         lambda: of().SynthResult(IMG, IMG, np.zeros((24, 32, 2)), np.ones((4, 4), bool), D), ("mask",)),
    Case("opticalflow.219", "CrossModalPairs", "image_b with another count",
         lambda: of().CrossModalPairs(np.zeros((2, 16, 16, 3)), np.zeros((3, 16, 16)), np.zeros((2, 16, 16, 2)),
                                      np.ones((2, 16, 16), bool)), ("image_b",)),
    Case("opticalflow.220", "CrossModalPairs", "3-D image_a",
         lambda: of().CrossModalPairs(np.zeros((16, 16, 3)), np.zeros((2, 16, 16)), np.zeros((2, 16, 16, 2)),
                                      np.ones((2, 16, 16), bool)), ("image_a",)),
    Case("opticalflow.221", "CrossModalPairs.subset", "index out of range", lambda: _pairs().subset([5]), ("idx",)),
    Case("opticalflow.222", "CrossModalPairs.subset", "empty selection", lambda: _pairs().subset([]), ("idx",)),
    Case("opticalflow.223", "CrossModalPairs.subset", "float indices", lambda: _pairs().subset([0.5]), ("idx",)),
    Case("opticalflow.224", "MotorcyclePair", "flow of another size",
         lambda: of().MotorcyclePair(RGB, RGB[..., 0], np.zeros((4, 4, 2)), np.ones((16, 16), bool),
                                     np.ones((16, 16)), RGB, "grey"), ("flow",)),
    Case("opticalflow.225", "SynthResult", "NaN depth",
         lambda: of().SynthResult(IMG, IMG, np.zeros((24, 32, 2)), np.ones((24, 32), bool), D * np.nan), ("depth",)),
    # ------------------------------------------------------------------ devices
    Case("opticalflow.226", "FlowNet.forward", "meta-device images (no data)",
         lambda: of().FlowNet()(torch().zeros(1, 3, 16, 16, device="meta"), torch().zeros(1, 3, 16, 16, device="meta")),
         ("img1",)),
    Case("opticalflow.227", "trimmed_l1", "meta-device prediction",
         lambda: of().trimmed_l1(torch().zeros(1, 2, 4, 4, device="meta"), _zeros(1, 2, 4, 4)), ("pred",)),
    Case("opticalflow.228", "DCFlow", "device of the wrong type", lambda: of().DCFlow(device=3.5), ("device",)),
    Case("opticalflow.229", "warp_affine", "meta-device image",
         lambda: of().warp_affine(torch().zeros(1, 1, 4, 4, device="meta"), I3), ("image",)),
    Case("opticalflow.230", "DCFlow", "reinit a string", lambda: of().DCFlow(reinit="yes"), ("reinit",)),
    Case("opticalflow.231", "TinyPWC", "negative seed", lambda: of().TinyPWC(rng=-1), ("rng",)),
    Case("opticalflow.232", "RAFTSmall", "string seed", lambda: of().RAFTSmall(rng="a"), ("rng",)),
    Case("opticalflow.233", "TinyUNet", "float seed", lambda: of().TinyUNet(rng=1.5), ("rng",)),
    Case("opticalflow.234", "FlowNet", "rng with a user module", lambda: of().FlowNet(of().TinyUNet(), rng=0),
         ("rng",)),
    # ------------------------------------------------------------------ file formats (issue 43)
    Case("opticalflow.235", "read_flo", "missing file", lambda: of().read_flo(_outside("missing.flo")), ("path",)),
    Case("opticalflow.236", "read_flo", "wrong tag", lambda: of().read_flo(_bad_file("tag.flo", np.array(
        [1.0, 0, 0], "<f4").tobytes())), ("path",)),
    Case("opticalflow.237", "read_flo", "header size larger than the file", lambda: of().read_flo(_bad_file(
        "short.flo", np.array([202021.25], "<f4").tobytes() + np.array([4, 3], "<i4").tobytes() + b"\0" * 8)),
         ("path",)),
    Case("opticalflow.238", "read_flo", "negative width", lambda: of().read_flo(_bad_file(
        "neg.flo", np.array([202021.25], "<f4").tobytes() + np.array([-4, 3], "<i4").tobytes())), ("path",)),
    Case("opticalflow.239", "read_flo", "path an int", lambda: of().read_flo(3), ("path",)),
    Case("opticalflow.240", "write_flo", "flow of shape (H, W, 3)", lambda: of().write_flo("a.flo", np.zeros((2, 2, 3))),
         ("flow",)),
    Case("opticalflow.241", "write_flo", "NaN flow", lambda: of().write_flo("a.flo", np.full((2, 2, 2), np.nan)),
         ("flow",)),
    Case("opticalflow.242", "write_flo", "suffix .png", lambda: of().write_flo("a.png", np.zeros((2, 2, 2))), ("path",)),
    Case("opticalflow.243", "write_flo", "missing folder", lambda: of().write_flo("no/such/a.flo", np.zeros((2, 2, 2))),
         ("path",)),
    Case("opticalflow.244", "read_kitti_flow", "an 8-bit PNG", lambda: of().read_kitti_flow(_png8()), ("path",)),
    Case("opticalflow.245", "read_kitti_flow", "not a PNG", lambda: of().read_kitti_flow(_bad_file("x.png", b"abc")),
         ("path",)),
    Case("opticalflow.246", "read_kitti_flow", "missing file", lambda: of().read_kitti_flow(_outside("none.png")),
         ("path",)),
    Case("opticalflow.247", "write_kitti_flow", "flow beyond the 16-bit range",
         lambda: of().write_kitti_flow("a.png", np.full((2, 2, 2), 600.0)), ("flow",)),
    Case("opticalflow.248", "write_kitti_flow", "valid of another shape",
         lambda: of().write_kitti_flow("a.png", np.zeros((2, 2, 2)), np.ones((3, 3), bool)), ("valid",)),
    Case("opticalflow.249", "write_kitti_flow", "suffix .flo", lambda: of().write_kitti_flow("a.flo", np.zeros((2, 2, 2))),
         ("path",)),
    Case("opticalflow.250", "load_paired_folder", "missing partner", lambda: of().load_paired_folder(
        *_paired_dirs(extra_a="0002")), ("folder_b",)),
    Case("opticalflow.251", "load_paired_folder", "missing folder", lambda: of().load_paired_folder(
        _outside("nope"), _outside("nope2")), ("folder_a",)),
    Case("opticalflow.252", "load_paired_folder", "frames of different sizes", lambda: of().load_paired_folder(
        *_paired_dirs(b_shape=(6, 6))), ("size",)),
    Case("opticalflow.253", "load_paired_folder", "size with a zero", lambda: of().load_paired_folder(
        *_paired_dirs(), size=(0, 4)), ("size",)),
    Case("opticalflow.254", "load_paired_folder", "empty folder_b", lambda: of().load_paired_folder(
        *_paired_dirs(empty_b=True)), ("folder_b",)),
    Case("opticalflow.255", "load_paired_folder", "size a string",
         lambda: of().load_paired_folder(*_paired_dirs(), size="big"), ("size",)),
    Case("opticalflow.256", "PairedFrames", "image_b of another count",
         lambda: of().PairedFrames(["x"], np.zeros((1, 4, 4, 3)), np.zeros((2, 4, 4))), ("image_b",)),
    Case("opticalflow.257", "PairedFrames", "names of another length",
         lambda: of().PairedFrames(["x", "y"], np.zeros((1, 4, 4, 3)), np.zeros((1, 4, 4))), ("names",)),
]
