"""Bad input to every public name of iclr26sci.opticalflow: a clear InputError naming the argument."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.opticalflow import (DCFlow, FlowNet, RAFTSmall, TinyPWC, TinyUNet, affine_flow, appearance_only,
                                   classical_flow, compose_affine_flow, crossmodal_pairs, flow_metrics,
                                   geometric_flow, modality_transform, motorcycle_pair, random_affine,
                                   random_camera_motion, random_smooth_depth, structural_loss, synthesize_view,
                                   texture_images, trimmed_l1, warp_affine)

BAD_INPUT_EXEMPT = {
    "opticalflow.MODALITIES": "a constant tuple of modality names; it takes no input",
    "opticalflow.FLOW_ARCHS": "a constant tuple of built-in architecture names; it takes no input",
    "opticalflow.FLO_TAG": "a constant (the Middlebury .flo tag); it takes no input",
}

K = np.array([[30.0, 0, 16], [0, 30.0, 12], [0, 0, 1]])
D = np.ones((24, 32))


@pytest.mark.bad_input("opticalflow.geometric_flow", "opticalflow.synthesize_view")
@pytest.mark.parametrize("kw,arg", [
    ({"depth": np.zeros((24, 32))}, "depth"),
    ({"depth": -np.ones((24, 32))}, "depth"),
    ({"depth": np.full((24, 32), np.nan)}, "depth"),
    ({"depth": np.ones(5)}, "depth"),
    ({"K": np.diag([0.0, 30.0, 1.0])}, "K"),
    ({"K": np.diag([30.0, -1.0, 1.0])}, "K"),
    ({"K": np.ones((2, 2))}, "K"),
    ({"R": 2 * np.eye(3)}, "R"),
    ({"R": np.diag([1.0, 1.0, -1.0])}, "R"),
    ({"R": "x"}, "R"),
    ({"t": [1.0, 2.0]}, "t"),
    ({"t": [np.inf, 0, 0]}, "t"),
])
def test_geometry_bad_input(kw, arg):
    args = {"depth": D, "K": K, "R": np.eye(3), "t": np.zeros(3), **kw}
    with pytest.raises(InputError, match=arg):
        geometric_flow(args["depth"], args["K"], args["R"], args["t"])
    with pytest.raises(InputError, match=arg):
        synthesize_view(np.zeros((24, 32)), args["depth"], args["K"], args["R"], args["t"])


@pytest.mark.bad_input("opticalflow.synthesize_view")
@pytest.mark.parametrize("kw,arg", [({"image": np.zeros((10, 10))}, "depth"),
                                    ({"photometric_eps": -1.0}, "photometric_eps"),
                                    ({"visibility_tol": np.nan}, "visibility_tol"),
                                    ({"image": np.full((24, 32), np.inf)}, "image")])
def test_synthesize_view_bad_input(kw, arg):
    args = {"image": np.zeros((24, 32)), **kw}
    img = args.pop("image")
    with pytest.raises(InputError, match=arg):
        synthesize_view(img, D, K, np.eye(3), np.zeros(3), **args)


@pytest.mark.bad_input("opticalflow.modality_transform")
@pytest.mark.parametrize("kw,arg", [({"modality": "xray"}, "modality"), ({"severity": 2.0}, "severity"),
                                    ({"image": np.zeros((4, 4, 2))}, "image")])
def test_modality_bad_input(kw, arg):
    args = {"image": np.zeros((8, 8, 3)), "modality": "thermal_like", **kw}
    img = args.pop("image")
    with pytest.raises(InputError, match=arg):
        modality_transform(img, **args)


@pytest.mark.bad_input("opticalflow.warp_affine", "opticalflow.compose_affine_flow", "opticalflow.affine_flow")
def test_affine_bad_input():
    sing = np.zeros((3, 3))
    sing[2, 2] = 1
    with pytest.raises(InputError, match="M"):
        warp_affine(np.zeros((4, 4)), sing)
    with pytest.raises(InputError, match="M"):
        affine_flow(np.eye(2), 4, 4)
    with pytest.raises(InputError, match="M_a"):
        compose_affine_flow(np.zeros((4, 4, 2)), np.ones((3, 3)), np.eye(3))
    with pytest.raises(InputError, match="flow"):
        compose_affine_flow(np.zeros((4, 4, 3)), np.eye(3), np.eye(3))
    with pytest.raises(InputError, match="image"):
        warp_affine(np.zeros(4), np.eye(3))


@pytest.mark.bad_input("opticalflow.trimmed_l1")
@pytest.mark.parametrize("trim", [0.5, -0.1, 1.0, True, "0.1", np.nan])
def test_trim_outside_range(trim):
    with pytest.raises(InputError, match="trim"):
        trimmed_l1(torch.zeros(1, 2, 4, 4), torch.zeros(1, 2, 4, 4), trim=trim)
    with pytest.raises(InputError, match="trim"):
        DCFlow(trim=trim).fit(crossmodal_pairs(n=2, size=16, rng=0), steps=1)


@pytest.mark.bad_input("opticalflow.trimmed_l1")
def test_trimmed_l1_shapes():
    with pytest.raises(InputError, match="pred"):
        trimmed_l1(torch.zeros(1, 3, 4, 4), torch.zeros(1, 3, 4, 4))
    with pytest.raises(InputError, match="target"):
        trimmed_l1(torch.zeros(1, 2, 4, 4), torch.zeros(1, 2, 4, 5))
    with pytest.raises(InputError, match="mask"):
        trimmed_l1(torch.zeros(1, 2, 4, 4), torch.zeros(1, 2, 4, 4), torch.ones(1, 3, 3, dtype=torch.bool))


@pytest.mark.bad_input("opticalflow.flow_metrics")
def test_flow_metrics_bad_input():
    with pytest.raises(InputError, match="gt"):
        flow_metrics(np.zeros((4, 4, 2)), np.zeros((4, 5, 2)))
    with pytest.raises(InputError, match="mask"):
        flow_metrics(np.zeros((4, 4, 2)), np.zeros((4, 4, 2)), np.zeros((4, 4), bool))
    with pytest.raises(InputError, match="mask"):
        flow_metrics(np.zeros((4, 4, 2)), np.zeros((4, 4, 2)), np.ones((3, 3), bool))
    with pytest.raises(InputError, match="flow"):
        flow_metrics(np.full((4, 4, 2), np.nan), np.zeros((4, 4, 2)))


class _BadNet(torch.nn.Module):
    def forward(self, a, b):
        return a[:, :1]


@pytest.mark.bad_input("opticalflow.FlowNet")
def test_flownet_bad_input():
    with pytest.raises(InputError, match="net"):
        FlowNet("flownet2")
    with pytest.raises(InputError, match="net"):
        FlowNet(3)
    with pytest.raises(InputError, match="net"):                 # output not (B, 2, H, W)
        FlowNet(_BadNet())(torch.zeros(1, 3, 16, 16), torch.zeros(1, 3, 16, 16))
    with pytest.raises(InputError, match="img2"):
        FlowNet("pwc_tiny")(torch.zeros(1, 3, 16, 16), torch.zeros(1, 3, 16, 32))


@pytest.mark.bad_input("opticalflow.DCFlow", "opticalflow.appearance_only")
@pytest.mark.parametrize("kw,arg", [({"objective": "photo"}, "objective"), ({"consistency": 1}, "consistency"),
                                    ({"lambda_T": -1.0}, "lambda_T"), ({"lambda_C": np.inf}, "lambda_C"),
                                    ({"consistency_start": 1.0}, "consistency_start"), ({"depth": "gt"}, "depth"),
                                    ({"batch_size": 0}, "batch_size"), ({"lr": 0.0}, "lr"), ({"rng": -1}, "rng"),
                                    ({"device": "tpu:9"}, "device"), ({"net": "vgg"}, "net"),
                                    ({"translator": "unet"}, "translator"),
                                    ({"photometric_eps": 0.0}, "photometric_eps"),
                                    ({"lr_schedule": "cosine"}, "lr_schedule"),
                                    ({"translator_warmup": 1.0}, "translator_warmup")])
def test_dcflow_bad_params_refused_at_fit(kw, arg):
    pairs = crossmodal_pairs(n=2, size=16, rng=0)
    with pytest.raises(InputError, match=arg):
        DCFlow(**kw).fit(pairs, steps=1)
    if "objective" not in kw and "consistency" not in kw:
        with pytest.raises(InputError, match=arg):
            appearance_only(**kw).fit(pairs, steps=1)


@pytest.mark.bad_input("opticalflow.DCFlow")
def test_dcflow_fit_predict_bad_input():
    pairs = crossmodal_pairs(n=2, size=16, rng=0)
    with pytest.raises(InputError, match="pairs"):
        DCFlow().fit("images")
    with pytest.raises(InputError, match="steps"):
        DCFlow().fit(pairs, steps=0)
    with pytest.raises(InputError, match="epochs"):
        DCFlow().fit(pairs, epochs=1.5)
    with pytest.raises(InputError, match="depth"):
        DCFlow(depth="pairs").fit(pairs, steps=1)
    with pytest.raises(NotFittedError):
        DCFlow().predict(np.zeros((16, 16, 3)), np.zeros((16, 16)))
    m = DCFlow(batch_size=2).fit(pairs, steps=1)
    with pytest.raises(InputError, match="image_b"):            # images of different sizes
        m.predict(np.zeros((16, 16, 3)), np.zeros((16, 20)))
    with pytest.raises(InputError, match="image_a"):
        m.predict(np.zeros((16, 16, 4)), np.zeros((16, 16)))
    with pytest.raises(InputError, match="image_b"):
        m.predict(np.zeros((16, 16, 3)), np.full((16, 16), np.nan))


@pytest.mark.bad_input("opticalflow.crossmodal_pairs")
@pytest.mark.parametrize("kw,arg", [({"modality": "x"}, "modality"), ({"n": 0}, "n"), ({"size": 8}, "size"),
                                    ({"source": "web"}, "source"), ({"rng": -2}, "rng"),
                                    ({"misalign": {"foo": 1}}, "misalign"),
                                    ({"source": np.zeros((2, 40, 40)), "depth": np.zeros((2, 40, 40))}, "depth"),
                                    ({"source": np.zeros((2, 10, 10))}, "source"),
                                    ({"depth": np.ones((1, 4, 4))}, "depth")])
def test_crossmodal_pairs_bad_input(kw, arg):
    with pytest.raises(InputError, match=arg):
        crossmodal_pairs(**{"n": 2, "size": 16, **kw})


@pytest.mark.bad_input("opticalflow.motorcycle_pair")
def test_motorcycle_bad_input():
    with pytest.raises(InputError, match="modality"):
        motorcycle_pair("radar")
    with pytest.raises(InputError, match="width"):
        motorcycle_pair(width=5000)


@pytest.mark.bad_input("opticalflow.classical_flow")
def test_classical_bad_input():
    with pytest.raises(InputError, match="method"):
        classical_flow(np.zeros((8, 8)), np.zeros((8, 8)), "lk")
    with pytest.raises(InputError, match="image_b"):
        classical_flow(np.zeros((16, 16)), np.zeros((16, 17)))


@pytest.mark.bad_input("opticalflow.synthesize_view")
def test_fill_holes_must_be_bool():
    with pytest.raises(InputError, match="fill_holes"):
        synthesize_view(np.zeros((24, 32)), D, K, np.eye(3), np.zeros(3), fill_holes=1)
