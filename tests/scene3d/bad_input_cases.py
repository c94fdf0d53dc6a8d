"""Bad-input sweep cases for iclr26sci.scene3d (format: tests/bad_input_sweep.py).

Fixtures are tiny and built once (``functools.lru_cache``); each case makes one bad call.
"""
import functools

import numpy as np

from bad_input_sweep import Case
from iclr26sci.scene3d import gaussian_fusion as GF
from iclr26sci.scene3d import josh as J
from iclr26sci.scene3d import ssdgs as S


# ----------------------------------------------------------------------------------------------- fixtures
@functools.lru_cache(None)
def fdata():
    return GF.driving_scene(n_scenes=2, cameras=2, lidar_beams=4, width=16, height=8, lidar_azimuths=64, rng=0,
                            backend="numpy")


TINY = dict(n_gaussians=32, bev=8, feature_bev=8, embed=8, encoder_layers=1, epochs=1, depth_bins=4)


@functools.lru_cache(None)
def gfit():
    return GF.GaussianFusion(**TINY, rng=0).fit(fdata().train)


def scene(**kw):
    s = fdata().train[0]
    return type(s)(**{**s.__dict__, **kw})


def gf_fit(**kw):
    return GF.GaussianFusion(**TINY).fit([scene(**kw)])


G = GF.Grid((-1.0, -1.0, -1.0), (1.0, 1.0, 1.0), (4, 4, 4))
GOK = dict(means=[[0.0, 0, 0]], scales=[[0.5, 0.5, 0.5]], rots=[[1.0, 0, 0, 0]], feats=[[1.0]])


def splat(fn=GF.splat_gaussians, **kw):
    a = {**GOK, "grid": G, **kw}
    return fn(a.pop("means"), a.pop("scales"), a.pop("rots"), a.pop("feats"), a.pop("grid"), **a)


K3 = np.array([[10.0, 0, 5], [0, 10, 5], [0, 0, 1]])


def fproj(**kw):
    a = {"intrinsics": K3, "cam_to_ego": np.eye(4), "uv": [[1.0, 2.0]], "depths": [1.0], **kw}
    return GF.forward_project(**a)


P1 = [np.array([[1, 0.3, 0, 0, 1, 1, 1, 0, 0.9]])]
GT1 = [np.array([[1, 0.0, 0, 0, 1, 1, 1, 0]])]


@functools.lru_cache(None)
def odata():
    return S.olat_scene(mesh="sphere", cameras=2, train_lights=2, test_lights=1, size=12, rng=0, light_samples=1,
                        backend="numpy")


@functools.lru_cache(None)
def smodel():
    return S.SSDGS(n_gaussians=60, n_steps=2, rng=0).fit(odata().train)


def olat(**kw):
    s = odata().train
    a = dict(images=s.images, cameras=s.cameras, lights=s.lights, intensity=s.intensity, points=s.points,
             normals=s.normals)
    a.update(kw)
    return S.OLATSet(**a)


def olat_scene(**kw):
    a = dict(mesh="sphere", cameras=1, train_lights=1, test_lights=1, size=8, rng=0, backend="numpy")
    a.update(kw)
    return S.olat_scene(**a)


def asg(**kw):
    a = {"h": [[0.0, 0.0, 1.0]], "frame": np.eye(3), "lam": 1.0, "mu": 1.0, "sigma": 0.3, **kw}
    return S.asg_lobe(**a)


def vis(**kw):
    a = dict(means=[[0.0, 0, 0], [0.0, 0, 1.0]], quats=[[1.0, 0, 0, 0]] * 2, log_scales=[[-2.0] * 3] * 2,
             opacity_logits=[0.0, 0.0], light=[0.0, 0.1, 4.0], width=8, height=8)
    a.update(kw)
    return S.light_space_visibility(**a)


@functools.lru_cache(None)
def video():
    return J.human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)


@functools.lru_cache(None)
def jinputs():
    return video().observations("none", rng=0)


def jin(**over):
    d = jinputs().to_dict()
    d.update(over)
    return J.JOSHInputs(**d)


def match(**over):
    m = jinputs().matches[0]
    d = dict(i=m.i, j=m.j, pix_i=m.pix_i, pix_j=m.pix_j, depth_i=m.depth_i, depth_j=m.depth_j, conf=m.conf)
    d.update(over)
    return jin(matches=[J.PairMatches(**d)])


@functools.lru_cache(None)
def jresult():
    return J.JOSH(n_iter=(1, 0), phases=("coarse",)).fit(jinputs())


def josh(**kw):
    return J.JOSH(**kw).fit(jinputs())


A = np.random.default_rng(0).normal(size=(3, 24, 3))
NAN = float("nan")

CASES = [
    # ----------------------------------------------------------------------- GaussianFusion: metrics
    Case("scene3d.001", "center_distance_ap", "NaN score", lambda: GF.center_distance_ap(
        [np.array([[1, 0.3, 0, 0, 1, 1, 1, 0, NAN]])], GT1, 1, 0.5), ("preds",)),
    Case("scene3d.002", "center_distance_ap", "inf coordinate", lambda: GF.center_distance_ap(
        [np.array([[1, np.inf, 0, 0, 1, 1, 1, 0, 0.5]])], GT1, 1, 0.5), ("preds",)),
    Case("scene3d.003", "center_distance_ap", "pred rows of 7 columns", lambda: GF.center_distance_ap(
        [np.zeros((2, 7))], GT1, 1, 0.5), ("preds",)),
    Case("scene3d.004", "center_distance_ap", "gt rows of 9 columns", lambda: GF.center_distance_ap(
        P1, [np.zeros((1, 9))], 1, 0.5), ("gts",)),
    Case("scene3d.005", "center_distance_ap", "NaN in gts", lambda: GF.center_distance_ap(
        P1, [np.array([[1, NAN, 0, 0, 1, 1, 1, 0]])], 1, 0.5), ("gts",)),
    Case("scene3d.006", "center_distance_ap", "label 1.5", lambda: GF.center_distance_ap(P1, GT1, 1.5, 0.5),
         ("label",)),
    Case("scene3d.007", "center_distance_ap", "label 0 (free space)", lambda: GF.center_distance_ap(P1, GT1, 0, 0.5),
         ("label",)),
    Case("scene3d.008", "center_distance_ap", "threshold NaN", lambda: GF.center_distance_ap(P1, GT1, 1, NAN),
         ("threshold",)),
    Case("scene3d.009", "center_distance_ap", "preds not a list", lambda: GF.center_distance_ap(5, GT1, 1, 0.5),
         ("preds",)),
    Case("scene3d.010", "center_distance_ap", "non-integer label column", lambda: GF.center_distance_ap(
        [np.array([[1.5, 0.3, 0, 0, 1, 1, 1, 0, 0.9]])], GT1, 1, 0.5), ("preds",)),
    Case("scene3d.011", "center_distance_ap", "no ground truth of the class (AP undefined)",
         lambda: GF.center_distance_ap(P1, [np.zeros((0, 8))], 1, 0.5), ("gts", "label")),
    Case("scene3d.012", "occupancy_iou", "label 7 of 2 classes", lambda: GF.occupancy_iou(
        np.array([0, 7, 1]), np.array([0, 7, 1]), 2), ("pred",)),
    Case("scene3d.013", "occupancy_iou", "negative target label", lambda: GF.occupancy_iou(
        np.array([0, 1, 1]), np.array([0, -1, 1]), 2), ("target",)),
    Case("scene3d.014", "occupancy_iou", "float labels", lambda: GF.occupancy_iou(
        np.array([0, 0.5, 1]), np.array([0, 1, 1]), 2), ("pred",)),
    Case("scene3d.015", "occupancy_iou", "empty arrays", lambda: GF.occupancy_iou(np.zeros(0), np.zeros(0), 2),
         ("pred",)),
    Case("scene3d.016", "occupancy_iou", "NaN label", lambda: GF.occupancy_iou(
        np.array([0, NAN, 1]), np.array([0, 1, 1]), 2), ("pred",)),
    Case("scene3d.017", "occupancy_iou", "n_classes 2.0", lambda: GF.occupancy_iou([0, 1], [0, 1], 2.0),
         ("n_classes",)),
    Case("scene3d.018", "occupancy_iou", "string labels", lambda: GF.occupancy_iou(["a", "b"], ["a", "b"], 2),
         ("pred",)),
    # ----------------------------------------------------------------------- GaussianFusion: operators
    Case("scene3d.019", "splat_gaussians", "means (n, 2)", lambda: splat(means=[[0.0, 0]]), ("means",)),
    Case("scene3d.020", "splat_gaussians", "zero scale", lambda: splat(scales=[[0.0, 1, 1]]), ("scales",)),
    Case("scene3d.021", "splat_gaussians", "zero quaternion", lambda: splat(rots=[[0.0, 0, 0, 0]]), ("rots",)),
    Case("scene3d.022", "splat_gaussians", "feats rows mismatch", lambda: splat(feats=[[1.0], [2.0]]), ("feats",)),
    Case("scene3d.023", "splat_gaussians", "NaN mean", lambda: splat(means=[[NAN, 0, 0]]), ("means",)),
    Case("scene3d.024", "splat_gaussians", "grid a string", lambda: splat(grid="grid"), ("grid",)),
    Case("scene3d.025", "splat_gaussians", "truncate < 0", lambda: splat(truncate=-1.0), ("truncate",)),
    Case("scene3d.026", "splat_gaussians", "max_radius 0", lambda: splat(max_radius=0), ("max_radius",)),
    Case("scene3d.027", "splat_gaussians", "no Gaussians", lambda: splat(
        means=np.zeros((0, 3)), scales=np.zeros((0, 3)), rots=np.zeros((0, 4)), feats=np.zeros((0, 1))), ("means",)),
    Case("scene3d.028", "splat_gaussians", "feats with 0 channels", lambda: splat(feats=np.zeros((1, 0))),
         ("feats",)),
    Case("scene3d.029", "splat_gaussians", "truncate a string", lambda: splat(truncate="3"), ("truncate",)),
    Case("scene3d.030", "splat_gaussians", "complex means", lambda: splat(means=[[1j, 0, 0]]), ("means",)),
    Case("scene3d.031", "mean_vfe", "rots (n, 3)", lambda: splat(GF.mean_vfe, rots=[[1.0, 0, 0]]), ("rots",)),
    Case("scene3d.032", "mean_vfe", "dims 1", lambda: splat(GF.mean_vfe, dims=1), ("dims",)),
    Case("scene3d.033", "mean_vfe", "negative scale", lambda: splat(GF.mean_vfe, scales=[[-1.0, 1, 1]]), ("scales",)),
    Case("scene3d.034", "mean_vfe", "no Gaussians", lambda: splat(
        GF.mean_vfe, means=np.zeros((0, 3)), scales=np.zeros((0, 3)), rots=np.zeros((0, 4)), feats=np.zeros((0, 1))),
        ("means",)),
    Case("scene3d.035", "mean_vfe", "dims True", lambda: splat(GF.mean_vfe, dims=True), ("dims",)),
    Case("scene3d.036", "Grid", "zero cells", lambda: GF.Grid((-1.0,) * 3, (1.0,) * 3, (0, 4, 4)), ("shape",)),
    Case("scene3d.037", "Grid", "hi below lo", lambda: GF.Grid((-1.0,) * 3, (1.0, -2.0, 1.0), (4, 4, 4)), ("hi",)),
    Case("scene3d.038", "Grid", "inf corner", lambda: GF.Grid((0.0, np.inf, 0.0), (1.0,) * 3, (4, 4, 4)), ("lo",)),
    Case("scene3d.039", "Grid", "2-D shape", lambda: GF.Grid((-1.0,) * 3, (1.0,) * 3, (4, 4)), ("shape",)),
    Case("scene3d.040", "Grid", "non-integer cells", lambda: GF.Grid((-1.0,) * 3, (1.0,) * 3, (4.5, 4, 4)),
         ("shape",)),
    Case("scene3d.041", "Grid.with_bev", "bev 0", lambda: G.with_bev(0), ("bev",)),
    Case("scene3d.042", "forward_project", "singular K", lambda: fproj(intrinsics=np.zeros((3, 3))), ("intrinsics",)),
    Case("scene3d.043", "forward_project", "K last row not 0 0 1", lambda: fproj(
        intrinsics=np.array([[10.0, 0, 5], [0, 10, 5], [1, 0, 1]])), ("intrinsics",)),
    Case("scene3d.044", "forward_project", "3x3 extrinsic", lambda: fproj(cam_to_ego=np.eye(3)), ("cam_to_ego",)),
    Case("scene3d.045", "forward_project", "reflection extrinsic", lambda: fproj(cam_to_ego=np.diag([1.0, 1, -1, 1])),
         ("cam_to_ego",)),
    Case("scene3d.046", "forward_project", "uv (n, 3)", lambda: fproj(uv=[[1.0, 2, 3]]), ("uv",)),
    Case("scene3d.047", "forward_project", "zero depth", lambda: fproj(depths=[0.0, 1.0]), ("depths",)),
    Case("scene3d.048", "forward_project", "no depths", lambda: fproj(depths=[]), ("depths",)),
    Case("scene3d.049", "forward_project", "NaN uv", lambda: fproj(uv=[[NAN, 2.0]]), ("uv",)),
    Case("scene3d.050", "forward_project", "string K", lambda: fproj(intrinsics="K"), ("intrinsics",)),
    # ----------------------------------------------------------------------- GaussianFusion: data and models
    Case("scene3d.051", "driving_scene", "one scene", lambda: GF.driving_scene(n_scenes=1), ("n_scenes",)),
    Case("scene3d.052", "driving_scene", "unknown class", lambda: GF.driving_scene(n_scenes=2, classes=("car", "tree")),
         ("classes",)),
    Case("scene3d.053", "driving_scene", "classes a string", lambda: GF.driving_scene(n_scenes=2, classes="car"),
         ("classes",)),
    Case("scene3d.054", "driving_scene", "test_fraction 1", lambda: GF.driving_scene(n_scenes=2, test_fraction=1.0),
         ("test_fraction",)),
    Case("scene3d.055", "driving_scene", "backend gpu", lambda: GF.driving_scene(n_scenes=2, backend="gpu"),
         ("backend",)),
    Case("scene3d.056", "driving_scene", "width 4", lambda: GF.driving_scene(n_scenes=2, width=4), ("width",)),
    Case("scene3d.057", "driving_scene", "bad rng", lambda: GF.driving_scene(n_scenes=2, rng="seed"), ("rng",)),
    Case("scene3d.058", "driving_scene", "test_fraction NaN", lambda: GF.driving_scene(n_scenes=2, test_fraction=NAN),
         ("test_fraction",)),
    Case("scene3d.059", "GaussianFusion", "bev 0", lambda: GF.GaussianFusion(**{**TINY, "bev": 0}).fit(fdata().train),
         ("bev",)),
    Case("scene3d.060", "GaussianFusion", "refine option", lambda: GF.GaussianFusion(**TINY, refine="abs").fit(
        fdata().train), ("refine",)),
    Case("scene3d.061", "GaussianFusion", "device tpu", lambda: GF.GaussianFusion(**TINY, device="tpu:x").fit(
        fdata().train), ("device",)),
    Case("scene3d.062", "GaussianFusion", "device cuda:7 absent", lambda: GF.GaussianFusion(**TINY, device="cuda:7").fit(
        fdata().train), ("device",)),
    Case("scene3d.063", "GaussianFusion", "lr NaN", lambda: GF.GaussianFusion(**TINY, lr=NAN).fit(fdata().train),
         ("lr",)),
    Case("scene3d.064", "GaussianFusion", "init_scale inf", lambda: GF.GaussianFusion(**TINY, init_scale=np.inf).fit(
        fdata().train), ("init_scale",)),
    Case("scene3d.065", "GaussianFusion", "splat_channels 0", lambda: GF.GaussianFusion(
        **TINY, splat_channels=0).fit(fdata().train), ("splat_channels",)),
    Case("scene3d.066", "GaussianFusion", "max_splat_radius 0", lambda: GF.GaussianFusion(
        **TINY, max_splat_radius=0).fit(fdata().train), ("max_splat_radius",)),
    Case("scene3d.067", "GaussianFusion", "encoder_layers -1", lambda: GF.GaussianFusion(
        **{**TINY, "encoder_layers": -1}).fit(fdata().train), ("encoder_layers",)),
    Case("scene3d.068", "GaussianFusion", "bad rng", lambda: GF.GaussianFusion(**TINY, rng="x").fit(fdata().train),
         ("rng",)),
    Case("scene3d.069", "GaussianFusion", "empty scene list", lambda: GF.GaussianFusion(**TINY).fit([]), ("scenes",)),
    Case("scene3d.070", "GaussianFusion", "NaN depth map", lambda: gf_fit(depths=fdata().train[0].depths * NAN),
         ("scenes[0].depths",)),
    Case("scene3d.071", "GaussianFusion", "negative depths", lambda: gf_fit(depths=-fdata().train[0].depths),
         ("scenes[0].depths",)),
    Case("scene3d.072", "GaussianFusion", "images outside [0, 1]", lambda: gf_fit(images=fdata().train[0].images * 255),
         ("scenes[0].images",)),
    Case("scene3d.073", "GaussianFusion", "lidar_classes of the wrong length", lambda: gf_fit(
        lidar_classes=fdata().train[0].lidar_classes[:-1]), ("scenes[0].lidar_classes",)),
    Case("scene3d.074", "GaussianFusion", "lidar class 9 of 4", lambda: gf_fit(
        lidar_classes=np.full_like(fdata().train[0].lidar_classes, 9)), ("scenes[0].lidar_classes",)),
    Case("scene3d.075", "GaussianFusion", "pixel_classes wrong shape", lambda: gf_fit(
        pixel_classes=fdata().train[0].pixel_classes[:1]), ("scenes[0].pixel_classes",)),
    Case("scene3d.076", "GaussianFusion", "intrinsics with skew row", lambda: gf_fit(
        intrinsics=fdata().train[0].intrinsics * np.array([1, 1, 2.0])[:, None]), ("scenes[0].intrinsics",)),
    Case("scene3d.077", "GaussianFusion", "objects not a list", lambda: gf_fit(objects=5), ("scenes[0].objects",)),
    Case("scene3d.078", "GaussianFusion.predict_occupancy", "scene an array", lambda: gfit().predict_occupancy(
        np.zeros(3)), ("scene",)),
    Case("scene3d.079", "GaussianFusion.detect", "threshold 1.5", lambda: gfit().detect(fdata().test[0], threshold=1.5),
         ("threshold",)),
    Case("scene3d.080", "GaussianFusion.evaluate", "eval_bev not a multiple", lambda: GF.GaussianFusion.evaluate(
        gfit(), fdata().test, eval_bev=12), ("eval_bev",)),
    Case("scene3d.081", "GaussianFusion.evaluate", "model a string", lambda: GF.GaussianFusion.evaluate(
        "m", fdata().test), ("model",)),
    Case("scene3d.082", "GaussianFusion.training_memory", "scene None", lambda: gfit().training_memory(None),
         ("scene",)),
    Case("scene3d.083", "GaussianFusion.gaussians", "scene a dict", lambda: gfit().gaussians({}), ("scene",)),
    Case("scene3d.084", "GaussianFusion.evaluate", "empty scene list", lambda: GF.GaussianFusion.evaluate(gfit(), []),
         ("scenes",)),
    Case("scene3d.085", "BEVFusionBaseline", "depth_bins 1", lambda: GF.BEVFusionBaseline(
        bev=8, epochs=1, depth_bins=1).fit(fdata().train), ("depth_bins",)),
    Case("scene3d.086", "BEVFusionBaseline", "epochs 1.5", lambda: GF.BEVFusionBaseline(bev=8, epochs=1.5).fit(
        fdata().train), ("epochs",)),
    Case("scene3d.087", "BEVFusionBaseline", "modalities sonar", lambda: GF.BEVFusionBaseline(
        bev=8, epochs=1, modalities="sonar").fit(fdata().train), ("modalities",)),
    Case("scene3d.088", "FusionScene.occupancy", "grid a tuple", lambda: fdata().train[0].occupancy((4, 4, 4)),
         ("grid",)),
    Case("scene3d.089", "FusionScene.boxes", "unknown class", lambda: fdata().train[0].boxes(classes=("tree",)),
         ("classes",)),
    Case("scene3d.090", "FusionScene.boxes", "classes a string", lambda: fdata().train[0].boxes(classes="car"),
         ("classes",)),
    Case("scene3d.091", "FusionScene.rotate90", "k 1.5", lambda: fdata().train[0].rotate90(1.5), ("k",)),
    Case("scene3d.092", "FusionScene.rotate90", "backend gpu", lambda: fdata().train[0].rotate90(1, backend="gpu"),
         ("backend",)),
    # ----------------------------------------------------------------------- SSD-GS
    Case("scene3d.093", "olat_scene", "unknown mesh", lambda: olat_scene(mesh="no-such"), ("mesh",)),
    Case("scene3d.094", "olat_scene", "materials option", lambda: olat_scene(materials="plastic"), ("materials",)),
    Case("scene3d.095", "olat_scene", "size 2", lambda: olat_scene(size=2), ("size",)),
    Case("scene3d.096", "olat_scene", "albedo 1.5", lambda: olat_scene(material={"albedo": 1.5}),
         ("material['albedo']",)),
    Case("scene3d.097", "olat_scene", "intensity NaN", lambda: olat_scene(intensity=NAN), ("intensity",)),
    Case("scene3d.098", "olat_scene", "light_samples 0", lambda: olat_scene(light_samples=0), ("light_samples",)),
    Case("scene3d.099", "olat_scene", "n_points 0", lambda: olat_scene(n_points=0), ("n_points",)),
    Case("scene3d.100", "olat_scene", "backend gpu", lambda: olat_scene(backend="gpu"), ("backend",)),
    Case("scene3d.101", "olat_scene", "bad rng", lambda: olat_scene(rng="x"), ("rng",)),
    Case("scene3d.102", "olat_scene", "mesh with out-of-range face", lambda: olat_scene(
        mesh=(np.zeros((3, 3)), np.array([[0, 1, 5]]))), ("mesh",)),
    Case("scene3d.103", "olat_scene", "cameras 2.5", lambda: olat_scene(cameras=2.5), ("cameras",)),
    Case("scene3d.104", "OLATSet", "one camera fewer", lambda: olat(cameras=odata().train.cameras[:-1]), ("cameras",)),
    Case("scene3d.105", "OLATSet", "negative intensity", lambda: olat(intensity=-1.0), ("intensity",)),
    Case("scene3d.106", "OLATSet", "2-channel images", lambda: olat(images=odata().train.images[..., :2]),
         ("images",)),
    Case("scene3d.107", "OLATSet", "negative radiance", lambda: olat(images=-odata().train.images), ("images",)),
    Case("scene3d.108", "OLATSet", "diffuse of the wrong shape", lambda: olat(diffuse=np.zeros((1, 2, 2, 3))),
         ("diffuse",)),
    Case("scene3d.109", "OLATSet", "shadow outside [0, 1]", lambda: olat(
        shadow=np.full(odata().train.images.shape[:3], 2.0)), ("shadow",)),
    Case("scene3d.110", "OLATSet", "normals not unit", lambda: olat(normals=odata().train.normals * 0.0),
         ("normals",)),
    Case("scene3d.111", "OLATSet", "lambert_mask not bool", lambda: olat(
        lambert_mask=np.full(odata().train.images.shape[:3], 0.5)), ("lambert_mask",)),
    Case("scene3d.112", "OLATSet.subset", "index out of range", lambda: odata().train.subset([99]), ("index",)),
    Case("scene3d.113", "OLATSet.subset", "float index", lambda: odata().train.subset([0.7]), ("index",)),
    Case("scene3d.114", "OLATSet.subset", "bool mask", lambda: odata().train.subset([True, False, True, False]),
         ("index",)),
    Case("scene3d.115", "SSDGS", "n_gaussians 0", lambda: S.SSDGS(n_gaussians=0, n_steps=1).fit(odata().train),
         ("n_gaussians",)),
    Case("scene3d.116", "SSDGS", "schedule option", lambda: S.SSDGS(n_gaussians=10, n_steps=1, schedule="x").fit(
        odata().train), ("schedule",)),
    Case("scene3d.117", "SSDGS", "device cuda:7 absent", lambda: S.SSDGS(n_gaussians=10, n_steps=1, device="cuda:7").fit(
        odata().train), ("device",)),
    Case("scene3d.118", "SSDGS", "lr_scale NaN", lambda: S.SSDGS(n_gaussians=10, n_steps=1, lr_scale=NAN).fit(
        odata().train), ("lr_scale",)),
    Case("scene3d.119", "SSDGS", "bad rng", lambda: S.SSDGS(n_gaussians=10, n_steps=1, rng="x").fit(odata().train),
         ("rng",)),
    Case("scene3d.120", "SSDGS.fit", "data an array", lambda: S.SSDGS(n_gaussians=10, n_steps=1).fit(np.zeros(3)),
         ("data",)),
    Case("scene3d.121", "SSDGS.relight", "light inside the object", lambda: smodel().relight(
        odata().test.cameras[0], smodel().params_["means"][0].detach().numpy()), ("light",)),
    Case("scene3d.122", "SSDGS.relight", "NaN light", lambda: smodel().relight(odata().test.cameras[0], [0, NAN, 3.0]),
         ("light",)),
    Case("scene3d.123", "SSDGS.relight", "intensity 0", lambda: smodel().relight(
        odata().test.cameras[0], odata().test.lights[0], intensity=0.0), ("intensity",)),
    Case("scene3d.124", "SSDGS.decompose", "camera a string", lambda: smodel().decompose("cam", odata().test.lights[0]),
         ("camera",)),
    Case("scene3d.125", "SSDGS.evaluate", "data a list", lambda: smodel().evaluate([1, 2]), ("data",)),
    Case("scene3d.126", "SSDGS.relight", "intensity NaN", lambda: smodel().relight(
        odata().test.cameras[0], odata().test.lights[0], intensity=NAN), ("intensity",)),
    Case("scene3d.127", "schlick_fresnel", "f0 1.5", lambda: S.schlick_fresnel([0.5], f0=1.5), ("f0",)),
    Case("scene3d.128", "schlick_fresnel", "NaN cosine", lambda: S.schlick_fresnel([NAN]), ("cos_theta",)),
    Case("scene3d.129", "schlick_fresnel", "cosine 2", lambda: S.schlick_fresnel([2.0]), ("cos_theta",)),
    Case("scene3d.130", "schlick_fresnel", "cosine -0.5", lambda: S.schlick_fresnel([-0.5]), ("cos_theta",)),
    Case("scene3d.131", "schlick_fresnel", "string cosine", lambda: S.schlick_fresnel("abc"), ("cos_theta",)),
    Case("scene3d.132", "asg_lobe", "non-unit h", lambda: asg(h=[[0.0, 0.0, 2.0]]), ("h",)),
    Case("scene3d.133", "asg_lobe", "frame not orthonormal", lambda: asg(frame=np.ones((3, 3))), ("frame",)),
    Case("scene3d.134", "asg_lobe", "frame a reflection", lambda: asg(frame=np.diag([1.0, 1.0, -1.0])), ("frame",)),
    Case("scene3d.135", "asg_lobe", "lam < 0", lambda: asg(lam=-1.0), ("lam",)),
    Case("scene3d.136", "asg_lobe", "two sigmas for one lobe", lambda: asg(sigma=[0.1, 0.2]), ("sigma",)),
    Case("scene3d.137", "asg_lobe", "NaN mu", lambda: asg(mu=NAN), ("mu",)),
    Case("scene3d.138", "dipole_profile", "negative r", lambda: S.dipole_profile(-1.0, 1.0, 0.1), ("r",)),
    Case("scene3d.139", "dipole_profile", "variant option", lambda: S.dipole_profile(0.5, 1.0, 0.1, variant="x"),
         ("variant",)),
    Case("scene3d.140", "dipole_profile", "eta 0", lambda: S.dipole_profile(0.5, 1.0, 0.1, eta=0.0), ("eta",)),
    Case("scene3d.141", "dipole_profile", "sigma_a inf", lambda: S.dipole_profile(0.5, 1.0, np.inf), ("sigma_a",)),
    Case("scene3d.142", "dipole_profile", "shapes that do not broadcast", lambda: S.dipole_profile(
        [0.5, 1.0, 2.0], [1.0, 2.0], 0.1), ("sigma_s_prime",)),
    Case("scene3d.143", "dipole_total_reflectance", "sigma_s_prime 0", lambda: S.dipole_total_reflectance(0.0, 0.1),
         ("sigma_s_prime",)),
    Case("scene3d.144", "dipole_total_reflectance", "eta NaN", lambda: S.dipole_total_reflectance(1.0, 0.1, eta=NAN),
         ("eta",)),
    Case("scene3d.145", "dipole_total_reflectance", "shapes that do not broadcast",
         lambda: S.dipole_total_reflectance([1.0, 2.0, 3.0], [0.1, 0.2]), ("sigma_a",)),
    Case("scene3d.146", "light_space_visibility", "light inside a Gaussian", lambda: vis(light=[0.0, 0.0, 0.0]),
         ("light",)),
    Case("scene3d.147", "light_space_visibility", "no Gaussians", lambda: vis(
        means=np.zeros((0, 3)), quats=np.zeros((0, 4)), log_scales=np.zeros((0, 3)), opacity_logits=np.zeros(0)),
        ("means",)),
    Case("scene3d.148", "light_space_visibility", "quats rows mismatch", lambda: vis(quats=[[1.0, 0, 0, 0]]),
         ("quats",)),
    Case("scene3d.149", "light_space_visibility", "zero quaternion", lambda: vis(quats=[[0.0, 0, 0, 0]] * 2),
         ("quats",)),
    Case("scene3d.150", "light_space_visibility", "offset < 0", lambda: vis(offset=-1.0), ("offset",)),
    Case("scene3d.151", "light_space_visibility", "width 0", lambda: vis(width=0), ("width",)),
    Case("scene3d.152", "light_space_visibility", "focal NaN", lambda: vis(focal=NAN), ("focal",)),
    # ----------------------------------------------------------------------- JOSH
    Case("scene3d.153", "gamma_loss", "gamma 0", lambda: J.gamma_loss(1.0, 0.0), ("gamma",)),
    Case("scene3d.154", "gamma_loss", "negative r", lambda: J.gamma_loss(-1.0, 1.1), ("r",)),
    Case("scene3d.155", "gamma_loss", "NaN r", lambda: J.gamma_loss(NAN, 1.1), ("r",)),
    Case("scene3d.156", "gamma_loss", "gamma inf", lambda: J.gamma_loss(1.0, np.inf), ("gamma",)),
    Case("scene3d.157", "w_mpjpe", "shape mismatch", lambda: J.w_mpjpe(A, A[:2]), ("gt",)),
    Case("scene3d.158", "w_mpjpe", "n_align 0", lambda: J.w_mpjpe(A, A, n_align=0), ("n_align",)),
    Case("scene3d.159", "w_mpjpe", "NaN joints", lambda: J.w_mpjpe(A * NAN, A), ("pred",)),
    Case("scene3d.160", "w_mpjpe", "one joint, one frame (rotation undefined)", lambda: J.w_mpjpe(
        A[:1, :1], A[:1, :1], n_align=1), ("pred", "n_align")),
    Case("scene3d.161", "w_mpjpe", "all joints at one point", lambda: J.w_mpjpe(np.zeros_like(A), A), ("pred",)),
    Case("scene3d.162", "wa_mpjpe", "J mismatch", lambda: J.wa_mpjpe(A, A[:, :3]), ("gt",)),
    Case("scene3d.163", "wa_mpjpe", "NaN", lambda: J.wa_mpjpe(np.full_like(A, NAN), A), ("pred",)),
    Case("scene3d.164", "wa_mpjpe", "collapsed prediction (scale undefined)", lambda: J.wa_mpjpe(np.zeros_like(A), A),
         ("pred",)),
    Case("scene3d.165", "wa_mpjpe", "2-D joints", lambda: J.wa_mpjpe(A[..., :2], A[..., :2]), ("pred",)),
    Case("scene3d.166", "foot_sliding", "float contact", lambda: J.foot_sliding(A, np.ones((3, 24))), ("contact",)),
    Case("scene3d.167", "foot_sliding", "NaN points", lambda: J.foot_sliding(A * NAN, np.ones((3, 24), bool)),
         ("points",)),
    Case("scene3d.168", "foot_sliding", "no consecutive contact (undefined)", lambda: J.foot_sliding(
        A, np.zeros((3, 24), bool)), ("contact",)),
    Case("scene3d.169", "foot_sliding", "2-D points", lambda: J.foot_sliding(A[0], np.ones((24,), bool)),
         ("points",)),
    Case("scene3d.170", "ate", "length mismatch", lambda: J.ate(np.zeros((4, 3)), np.zeros((3, 3))), ("gt_centres",)),
    Case("scene3d.171", "ate", "two centres (rotation undefined)", lambda: J.ate(A[0, :2], A[0, :2]),
         ("pred_centres", "gt_centres")),
    Case("scene3d.172", "ate", "collapsed trajectory", lambda: J.ate(np.zeros((5, 3)), A[0, :5]),
         ("pred_centres",)),
    Case("scene3d.173", "ate", "inf", lambda: J.ate(np.full((4, 3), np.inf), A[0, :4]), ("pred_centres",)),
    Case("scene3d.174", "JOSHInputs", "one frame of body_pose", lambda: jin(body_pose=jinputs().body_pose[:1]),
         ("body_pose",)),
    Case("scene3d.175", "JOSHInputs", "body_focal 0", lambda: jin(body_focal=0.0), ("body_focal",)),
    Case("scene3d.176", "JOSHInputs", "confidence 2", lambda: jin(confidence=jinputs().confidence * 2 + 0.1),
         ("confidence",)),
    Case("scene3d.177", "JOSHInputs", "human_mask int", lambda: jin(human_mask=jinputs().human_mask.astype(int)),
         ("human_mask",)),
    Case("scene3d.178", "JOSHInputs", "no matches", lambda: jin(matches=[]), ("matches",)),
    Case("scene3d.179", "JOSHInputs", "frame_index not increasing", lambda: jin(frame_index=np.zeros(2)),
         ("frame_index",)),
    Case("scene3d.180", "JOSHInputs", "keypoint_conf -1", lambda: jin(
        keypoints=np.zeros((2, 24, 2)), keypoint_conf=-np.ones((2, 24))), ("keypoint_conf",)),
    Case("scene3d.181", "JOSHInputs", "keypoint_conf 5", lambda: jin(
        keypoints=np.zeros((2, 24, 2)), keypoint_conf=np.full((2, 24), 5.0)), ("keypoint_conf",)),
    Case("scene3d.182", "JOSHInputs", "keypoint_conf without keypoints", lambda: jin(
        keypoints=None, keypoint_conf=np.ones((2, 24))), ("keypoint_conf",)),
    Case("scene3d.183", "JOSHInputs", "principal_point NaN", lambda: jin(principal_point=(NAN, 3.0)),
         ("principal_point",)),
    Case("scene3d.184", "JOSHInputs", "NaN body_shape", lambda: jin(body_shape=jinputs().body_shape * NAN),
         ("body_shape",)),
    Case("scene3d.185", "JOSHInputs", "depth with 2 dims", lambda: jin(depth=jinputs().depth[0]), ("depth",)),
    Case("scene3d.186", "JOSHInputs", "contact float", lambda: jin(contact=jinputs().contact.astype(float)),
         ("contact",)),
    Case("scene3d.187", "JOSHInputs", "body_translation behind camera", lambda: jin(
        body_translation=-jinputs().body_translation), ("body_translation",)),
    Case("scene3d.188", "PairMatches", "pix_j shorter", lambda: match(pix_j=jinputs().matches[0].pix_j[:-1]),
         ("matches[0]",)),
    Case("scene3d.189", "PairMatches", "i > j", lambda: match(i=1, j=0), ("matches[0]",)),
    Case("scene3d.190", "PairMatches", "NaN pixel", lambda: match(pix_i=jinputs().matches[0].pix_i * NAN),
         ("matches[0].pix_i",)),
    Case("scene3d.191", "PairMatches", "conf 0", lambda: match(conf=np.zeros_like(jinputs().matches[0].conf)),
         ("matches[0]",)),
    Case("scene3d.192", "PairMatches", "frame 1.0 float", lambda: match(i=0.0), ("matches[0]",)),
    Case("scene3d.193", "JOSH", "focal_init 0", lambda: josh(focal_init=0.0), ("focal_init",)),
    Case("scene3d.194", "JOSH", "phases reversed", lambda: josh(phases=("fine", "coarse")), ("phases",)),
    Case("scene3d.195", "JOSH", "n_iter of one entry", lambda: josh(n_iter=(10,)), ("n_iter",)),
    Case("scene3d.196", "JOSH", "lr 0", lambda: josh(lr=(0.0, 0.1)), ("lr",)),
    Case("scene3d.197", "JOSH", "w_c1 < 0", lambda: josh(w_c1=-1.0), ("w_c1",)),
    Case("scene3d.198", "JOSH", "strategy option", lambda: josh(strategy="x"), ("strategy",)),
    Case("scene3d.199", "JOSH", "dtype float16", lambda: josh(dtype="float16"), ("dtype",)),
    Case("scene3d.200", "JOSH", "device cuda:7 absent", lambda: josh(device="cuda:7"), ("device",)),
    Case("scene3d.201", "JOSH", "device tpu", lambda: josh(device="tpu"), ("device",)),
    Case("scene3d.202", "JOSH", "w_scene NaN", lambda: josh(w_scene=NAN), ("w_scene",)),
    Case("scene3d.203", "JOSH", "n_iter negative", lambda: josh(n_iter=(-1, 5)), ("n_iter",)),
    Case("scene3d.204", "JOSH", "gamma 0 entry", lambda: josh(gamma=(1.1, 0.0, 1.1)), ("gamma",)),
    Case("scene3d.205", "JOSH", "bad rng", lambda: josh(rng="x"), ("rng",)),
    Case("scene3d.206", "JOSH.fit", "inputs a dict", lambda: J.JOSH().fit({"depth": 1}), ("inputs",)),
    Case("scene3d.207", "JOSH.fit", "init nonsense", lambda: J.JOSH(n_iter=(0, 0)).fit(jinputs(), init={"x": 1}),
         ("init",)),
    Case("scene3d.208", "JOSH.evaluate", "result None", lambda: J.JOSH.evaluate(None, video().ground_truth),
         ("result",)),
    Case("scene3d.209", "JOSH.evaluate", "ground_truth dict", lambda: J.JOSH.evaluate(jresult(), {"joints": 1}),
         ("ground_truth",)),
    Case("scene3d.210", "JOSHResult", "result given as a dict", lambda: J.JOSH.evaluate(jresult().to_dict(), None),
         ("result",)),
    Case("scene3d.211", "human_scene_video", "motion option", lambda: J.human_scene_video(motion="dance"),
         ("motion",)),
    Case("scene3d.212", "human_scene_video", "one frame", lambda: J.human_scene_video(frames=1), ("frames",)),
    Case("scene3d.213", "human_scene_video", "focal NaN", lambda: J.human_scene_video(focal=NAN), ("focal",)),
    Case("scene3d.214", "human_scene_video", "keyframe_every 0", lambda: J.human_scene_video(keyframe_every=0),
         ("keyframe_every",)),
    Case("scene3d.215", "human_scene_video", "bad rng", lambda: J.human_scene_video(frames=6, rng="x"), ("rng",)),
    Case("scene3d.216", "human_scene_video", "fps inf", lambda: J.human_scene_video(fps=np.inf), ("fps",)),
    Case("scene3d.217", "HumanSceneVideo.observations", "noise option", lambda: video().observations("heavy"),
         ("noise",)),
    Case("scene3d.218", "HumanSceneVideo.observations", "outlier_rate 1", lambda: video().observations(
        outlier_rate=1.0), ("outlier_rate",)),
    Case("scene3d.219", "HumanSceneVideo.observations", "bad rng", lambda: video().observations(rng="x"), ("rng",)),
    Case("scene3d.220", "HumanSceneVideo.observations", "hmr_focal NaN", lambda: video().observations(hmr_focal=NAN),
         ("hmr_focal",)),
    Case("scene3d.221", "Grid", "lo a string", lambda: GF.Grid("abc", (1.0,) * 3, (4, 4, 4)), ("lo",)),
    Case("scene3d.222", "JOSHInputs", "match dict with unknown keys", lambda: jin(matches=[{"a": 1}]), ("matches[0]",)),
    Case("scene3d.223", "JOSHInputs", "depth all NaN", lambda: jin(depth=jinputs().depth * NAN), ("depth",)),
    Case("scene3d.224", "SSDGS.relight", "light of 2 coordinates", lambda: smodel().relight(
        odata().test.cameras[0], [0.0, 3.0]), ("light",)),
    Case("scene3d.225", "occupancy_iou", "bool labels", lambda: GF.occupancy_iou(
        np.array([True, False]), np.array([True, False]), 1), ("pred",)),
    Case("scene3d.901", "load_olat_capture", "folder does not exist", lambda: S.load_olat_capture("no-such-dir"),
         ("path",)),
    Case("scene3d.902", "load_olat_capture", "path is a number", lambda: S.load_olat_capture(3), ("path",)),
    Case("scene3d.903", "load_olat_capture", "no transforms_train.json", lambda: S.load_olat_capture("."),
         ("split",)),
    Case("scene3d.904", "load_olat_capture", "extension .jpg", lambda: S.load_olat_capture(".", extension=".jpg"),
         ("extension",)),
    Case("scene3d.905", "load_olat_capture", "intensity 0", lambda: S.load_olat_capture(".", intensity=0.0),
         ("intensity",)),
    # GaussianFusion: the nuScenes-layout reader and the new estimator options (ids 430+ reserved for gfusion)
    Case("scene3d.430", "read_nuscenes", "missing folder", lambda: GF.read_nuscenes("no_such_nuscenes_root"), ("root",)),
    Case("scene3d.431", "read_nuscenes", "no v1.0-* table folder", lambda: GF.read_nuscenes("."), ("version",)),
    Case("scene3d.432", "read_nuscenes", "image_size zero", lambda: GF.read_nuscenes(".", "x", image_size=(0, 4)),
         ("version", "image_size")),
    Case("scene3d.433", "GaussianFusion", "knn 0", lambda: GF.GaussianFusion(**TINY, knn=0).fit(fdata().train), ("knn",)),
    Case("scene3d.434", "GaussianFusion", "n_lidar_gaussians 0", lambda: GF.GaussianFusion(
        **TINY, n_lidar_gaussians=0).fit(fdata().train), ("n_lidar_gaussians",)),
]
