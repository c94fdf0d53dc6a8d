"""Bad input to the GaussianFusion API raises InputError naming the argument, before any work."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.scene3d import (BEVFusionBaseline, FusionData, GaussianFusion, Grid, center_distance_ap,
                               driving_scene, forward_project, mean_vfe, occupancy_iou, splat_gaussians)

BAD_INPUT_EXEMPT = {
    "scene3d.FusionEvaluation": "a result record built by evaluate(); takes no user input",
    "scene3d.FusionData": "a plain container of scene lists returned by driving_scene(); fit() validates its scenes",
}

TINY = dict(n_gaussians=32, bev=8, feature_bev=8, embed=8, encoder_layers=1, epochs=1, depth_bins=4)


@pytest.fixture(scope="module")
def data():
    return driving_scene(n_scenes=2, cameras=2, lidar_beams=4, width=16, height=8, lidar_azimuths=64, rng=0,
                         backend="numpy")


@pytest.fixture(scope="module")
def fitted(data):
    return GaussianFusion(**TINY, rng=0).fit(data.train)


def _with(scene, **kw):
    return type(scene)(**{**scene.__dict__, **kw})


@pytest.mark.bad_input("scene3d.driving_scene")
@pytest.mark.parametrize("kw, arg", [(dict(n_scenes=1), "n_scenes"), (dict(n_scenes=0), "n_scenes"),
                                     (dict(cameras=0), "cameras"), (dict(lidar_beams=-1), "lidar_beams"),
                                     (dict(classes=("car", "tree")), "classes"), (dict(classes="car"), "classes"),
                                     (dict(classes=()), "classes"), (dict(width=4), "width"),
                                     (dict(test_fraction=1.0), "test_fraction"), (dict(backend="gpu"), "backend"),
                                     (dict(lidar_azimuths=2.5), "lidar_azimuths")])
def test_driving_scene_bad(kw, arg):
    with pytest.raises(InputError, match=arg):
        driving_scene(**{"n_scenes": 2, **kw})


@pytest.mark.bad_input("scene3d.GaussianFusion")
@pytest.mark.parametrize("kw, arg", [(dict(bev=0), "bev"), (dict(bev=-8), "bev"), (dict(bev=8.0), "bev"),
                                     (dict(n_gaussians=0), "n_gaussians"), (dict(n_gaussians=-5), "n_gaussians"),
                                     (dict(refine="absolute"), "refine"), (dict(offsets="ring"), "offsets"),
                                     (dict(shared_encoder=1), "shared_encoder"), (dict(modalities=("radar",)), "modalities"),
                                     (dict(modalities=()), "modalities"), (dict(feature_bev=0), "feature_bev"),
                                     (dict(init_scale=0.0), "init_scale"), (dict(vfe="grid"), "vfe"),
                                     (dict(lidar_z="top"), "lidar_z"), (dict(lr=-1.0), "lr"), (dict(epochs=-1), "epochs"),
                                     (dict(classes=("car", "sky")), "classes"), (dict(device="tpu:x"), "device"),
                                     (dict(positional_embedding="yes"), "positional_embedding")])
def test_gaussian_fusion_params_bad(data, kw, arg):
    with pytest.raises(InputError, match=arg):
        GaussianFusion(**{**TINY, **kw}).fit(data.train)


@pytest.mark.bad_input("scene3d.BEVFusionBaseline")
@pytest.mark.parametrize("kw, arg", [(dict(bev=0), "bev"), (dict(modalities="sonar"), "modalities"),
                                     (dict(depth_bins=1), "depth_bins"), (dict(depth_supervision=None), "depth_supervision")])
def test_bev_baseline_params_bad(data, kw, arg):
    with pytest.raises(InputError, match=arg):
        BEVFusionBaseline(**{"bev": 8, "epochs": 1, **kw}).fit(data.train)


@pytest.mark.bad_input("scene3d.GaussianFusion")
@pytest.mark.bad_input("scene3d.FusionScene")
def test_extrinsics_that_disagree(data):
    s = data.train[0]
    L2C = s.lidar_to_cam.copy()
    L2C[0, 0, 3] += 0.5
    with pytest.raises(InputError, match="lidar_to_cam"):
        GaussianFusion(**TINY).fit([_with(s, lidar_to_cam=L2C)])


@pytest.mark.bad_input("scene3d.FusionScene")
def test_non_rigid_extrinsic(data):
    s = data.train[0]
    T = s.cam_to_ego.copy()
    T[1, :3, :3] *= 2
    with pytest.raises(InputError, match="cam_to_ego"):
        GaussianFusion(**TINY).fit([_with(s, cam_to_ego=T)])
    with pytest.raises(InputError, match="lidar_to_ego"):
        GaussianFusion(**TINY).fit([_with(s, lidar_to_ego=np.zeros((4, 4)))])


@pytest.mark.bad_input("scene3d.FusionScene")
def test_images_of_different_sizes(data):
    s = data.train[0]
    imgs = [s.images[0], s.images[1][:, :8]]
    with pytest.raises(InputError, match="images"):
        GaussianFusion(**TINY).fit([_with(s, images=imgs)])


@pytest.mark.bad_input("scene3d.FusionScene")
def test_scene_arrays_bad(data):
    s = data.train[0]
    with pytest.raises(InputError, match="depths"):
        GaussianFusion(**TINY).fit([_with(s, depths=s.depths[:1])])
    with pytest.raises(InputError, match="intrinsics"):
        GaussianFusion(**TINY).fit([_with(s, intrinsics=-s.intrinsics)])
    with pytest.raises(InputError, match="lidar_points"):
        GaussianFusion(**TINY).fit([_with(s, lidar_points=np.full((3, 3), np.nan))])
    with pytest.raises(InputError, match="images"):
        GaussianFusion(**TINY).fit([_with(s, images=s.images * np.nan)])


@pytest.mark.bad_input("scene3d.GaussianFusion")
def test_class_lists_that_do_not_match(data, fitted):
    s = data.train[0]
    with pytest.raises(InputError, match="classes"):
        GaussianFusion(**TINY, classes=("car", "pole", "road", "pedestrian")).fit(data.train)
    other = _with(data.test[0], classes=("car", "pole", "pedestrian", "road", "building"))
    with pytest.raises(InputError, match="classes"):
        fitted.predict_occupancy(other)
    with pytest.raises(InputError, match="classes"):
        GaussianFusion(**TINY).fit([s, other])
    with pytest.raises(InputError, match="classes"):      # objects labelled with a class not in the list
        GaussianFusion(**TINY).fit([_with(s, classes=("car", "road"))])


@pytest.mark.bad_input("scene3d.GaussianFusion")
def test_fit_and_predict_bad_args(data, fitted):
    with pytest.raises(InputError, match="scenes"):
        GaussianFusion(**TINY).fit([])
    with pytest.raises(InputError, match="scene"):
        GaussianFusion(**TINY).fit(["not a scene"])
    with pytest.raises(InputError, match="scene"):
        fitted.predict_occupancy(np.zeros(3))
    with pytest.raises(InputError, match="threshold"):
        fitted.detect(data.test[0], threshold=1.5)
    with pytest.raises(InputError, match="model"):
        GaussianFusion.evaluate("model", data.test)
    with pytest.raises(InputError, match="eval_bev"):
        GaussianFusion.evaluate(fitted, data.test, eval_bev=12)


@pytest.mark.bad_input("scene3d.GaussianFusion")
@pytest.mark.bad_input("scene3d.BEVFusionBaseline")
def test_unfitted_use(data):
    for m in (GaussianFusion(**TINY), BEVFusionBaseline(bev=8)):
        for call in (lambda: m.predict_occupancy(data.test[0]), lambda: m.detect(data.test[0]),
                     lambda: m.training_memory(data.test[0]), lambda: type(m).evaluate(m, data.test)):
            with pytest.raises(NotFittedError):
                call()
    with pytest.raises(NotFittedError):
        GaussianFusion(**TINY).gaussians(data.test[0])


G = Grid((-1.0, -1.0, -1.0), (1.0, 1.0, 1.0), (4, 4, 4))
OK = dict(means=[[0.0, 0, 0]], scales=[[0.5, 0.5, 0.5]], rots=[[1.0, 0, 0, 0]], feats=[[1.0]])


@pytest.mark.bad_input("scene3d.splat_gaussians")
@pytest.mark.parametrize("kw, arg", [(dict(means=[[0.0, 0]]), "means"), (dict(scales=[[0.0, 1, 1]]), "scales"),
                                     (dict(rots=[[0.0, 0, 0, 0]]), "rots"), (dict(feats=[[1.0], [2.0]]), "feats"),
                                     (dict(means=[[np.nan, 0, 0]]), "means"), (dict(grid="grid"), "grid"),
                                     (dict(truncate=-1.0), "truncate"), (dict(max_radius=0), "max_radius"),
                                     (dict(scales="abc"), "scales")])
def test_splat_bad(kw, arg):
    args = {**OK, "grid": G, **kw}
    with pytest.raises(InputError, match=arg):
        splat_gaussians(args.pop("means"), args.pop("scales"), args.pop("rots"), args.pop("feats"), args.pop("grid"),
                        **args)


@pytest.mark.bad_input("scene3d.mean_vfe")
@pytest.mark.parametrize("kw, arg", [(dict(rots=[[1.0, 0, 0]]), "rots"), (dict(grid=None), "grid"),
                                     (dict(dims=1), "dims"), (dict(scales=[[-1.0, 1, 1]]), "scales")])
def test_mean_vfe_bad(kw, arg):
    args = {**OK, "grid": G, **kw}
    with pytest.raises(InputError, match=arg):
        mean_vfe(args.pop("means"), args.pop("scales"), args.pop("rots"), args.pop("feats"), args.pop("grid"), **args)


@pytest.mark.bad_input("scene3d.Grid")
@pytest.mark.parametrize("kw, arg", [(dict(shape=(0, 4, 4)), "shape"), (dict(shape=(4, 4)), "shape"),
                                     (dict(hi=(1.0, -2.0, 1.0)), "hi"), (dict(lo=(0.0, np.inf, 0.0)), "lo"),
                                     (dict(shape=(4.5, 4, 4)), "shape")])
def test_grid_bad(kw, arg):
    args = {"lo": (-1.0, -1.0, -1.0), "hi": (1.0, 1.0, 1.0), "shape": (4, 4, 4), **kw}
    with pytest.raises(InputError, match=arg):
        Grid(**args)
    with pytest.raises(InputError, match="bev"):
        G.with_bev(0)


@pytest.mark.bad_input("scene3d.forward_project")
@pytest.mark.parametrize("kw, arg", [(dict(intrinsics=np.zeros((3, 3))), "intrinsics"),
                                     (dict(cam_to_ego=np.eye(3)), "cam_to_ego"), (dict(uv=[[1.0, 2, 3]]), "uv"),
                                     (dict(depths=[0.0, 1.0]), "depths"), (dict(depths=[]), "depths")])
def test_forward_project_bad(kw, arg):
    args = {"intrinsics": np.array([[10.0, 0, 5], [0, 10, 5], [0, 0, 1]]), "cam_to_ego": np.eye(4),
            "uv": [[1.0, 2.0]], "depths": [1.0], **kw}
    with pytest.raises(InputError, match=arg):
        forward_project(**args)


@pytest.mark.bad_input("scene3d.occupancy_iou")
def test_occupancy_iou_bad():
    with pytest.raises(InputError, match="pred"):
        occupancy_iou(np.zeros(3), np.zeros(4), 2)
    with pytest.raises(InputError, match="n_classes"):
        occupancy_iou(np.zeros(3), np.zeros(3), 0)


@pytest.mark.bad_input("scene3d.center_distance_ap")
def test_center_distance_ap_bad():
    with pytest.raises(InputError, match="threshold"):
        center_distance_ap([], [], 1, 0.0)
    with pytest.raises(InputError, match="preds"):
        center_distance_ap([np.zeros((0, 9))], [], 1, 1.0)
