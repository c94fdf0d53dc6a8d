"""GaussianFusion / BEVFusionBaseline end to end at tiny sizes, the synthetic scenes and the metrics."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from iclr26sci.core import InputError
from iclr26sci.scene3d import (BEVFusionBaseline, FusionEvaluation, GaussianFusion, Grid, center_distance_ap,
                               driving_scene, occupancy_iou)

TINY = dict(n_gaussians=64, bev=8, feature_bev=8, embed=8, encoder_layers=1, epochs=1, depth_bins=4)


@pytest.fixture(scope="module")
def data():
    return driving_scene(n_scenes=3, cameras=2, lidar_beams=4, width=16, height=8, lidar_azimuths=64, rng=0,
                         backend="numpy")


def test_scene_contents(data):
    s = data.train[0]
    assert s.images.shape == (2, 8, 16, 3) and s.images.min() >= 0 and s.images.max() <= 1
    assert s.lidar_points.shape[1] == 3 and len(s.lidar_points) == len(s.lidar_classes)
    names = {o.cls for o in s.objects}
    assert {"car", "pole", "pedestrian"} <= names
    assert np.allclose(s.lidar_to_cam, np.linalg.inv(s.cam_to_ego) @ s.lidar_to_ego)


def test_poles_are_labelled_at_every_resolution(data):
    s = data.train[0]
    n_poles = sum(o.cls == "pole" for o in s.objects)
    pole = s.classes.index("pole") + 1
    for R in (16, 64, 256):
        occ = s.occupancy(Grid((-16.0, -16.0, -2.0), (16.0, 16.0, 4.0), (R, R, 6)))
        cols = (occ == pole).any(2)
        # each 0.2 m pole touches 1 to 4 BEV columns (more only when it crosses a cell corner at fine R)
        assert n_poles <= cols.sum() <= 4 * n_poles * max(1, R // 64)


def test_lidar_returns_lie_on_objects_in_ego_frame(data):
    s = data.train[0]
    p = s.lidar_points @ s.lidar_to_ego[:3, :3].T + s.lidar_to_ego[:3, 3]
    road = s.lidar_classes == s.classes.index("road") + 1
    assert np.allclose(p[road, 2], 0.0, atol=1e-3)


def test_rotate90_rotates_objects(data):
    s = data.train[0]
    r = s.rotate90(1, backend="numpy")
    a, b = s.objects[0].centre, r.objects[0].centre
    assert np.allclose([b[0], b[1]], [-a[1], a[0]])


@pytest.mark.parametrize("kw", [dict(), dict(shared_encoder=False), dict(refine="direct"), dict(offsets="box"),
                                dict(positional_embedding=False), dict(modalities=("camera",)),
                                dict(modalities=("lidar",)), dict(vfe="bev", lidar_z="centre")])
def test_gaussian_fusion_variants_fit_predict(data, kw):
    m = GaussianFusion(**TINY, rng=0, **kw).fit(data.train)
    occ = m.predict_occupancy(data.test[0])
    assert occ.shape == (8, 8, 6) and occ.min() >= 0 and occ.max() <= 4
    det = m.detect(data.test[0])
    assert det.ndim == 2 and det.shape[1] == 9
    g = m.gaussians(data.test[0])
    assert np.allclose(np.linalg.norm(g["rots"], axis=1), 1, atol=1e-5) and (g["scales"] > 0).all()


def test_fit_is_deterministic_and_trains(data):
    a = GaussianFusion(**{**TINY, "epochs": 3}, rng=1).fit(data.train)
    b = clone(a).fit(data.train)
    assert np.array_equal(a.predict_occupancy(data.test[0]), b.predict_occupancy(data.test[0]))
    assert a.loss_curve_[-1] < a.loss_curve_[0]


def test_evaluate_both_models(data):
    g = GaussianFusion(**TINY, rng=0).fit(data.train)
    b = BEVFusionBaseline(bev=8, embed=8, depth_bins=4, epochs=1, rng=0).fit(data.train)
    for m in (g, b):
        ev = GaussianFusion.evaluate(m, data.test)
        assert isinstance(ev, FusionEvaluation) and 0 <= ev.miou <= 1 and ev.memory_bytes > 0
        d = ev.to_dict()
        assert set(d) >= {"miou", "pole_iou", "ap", "memory_bytes"} and "mIoU" in repr(ev) and "AP" in ev.summary()
    ev16 = GaussianFusion.evaluate(g, data.test, eval_bev=16)
    assert ev16.grid == (16, 16, 6)


def test_empty_point_cloud_is_allowed(data):
    s = data.test[0]
    empty = type(s)(**{**s.__dict__, "lidar_points": np.zeros((0, 3), np.float32),
                       "lidar_classes": np.zeros(0, np.int64)})
    for mods in (("camera", "lidar"), ("lidar",)):
        m = GaussianFusion(**TINY, modalities=mods, rng=0).fit(data.train)
        assert m.predict_occupancy(empty).shape == (8, 8, 6)
    b = BEVFusionBaseline(bev=8, embed=8, depth_bins=4, epochs=1, rng=0).fit(data.train)
    assert b.predict_occupancy(empty).shape == (8, 8, 6)


def test_bev_memory_grows_gaussian_encoder_does_not(data):
    s = data.train[0]
    mb = [BEVFusionBaseline(bev=R, embed=8, depth_bins=4, epochs=0).fit([s]).training_memory(s) for R in (16, 64)]
    assert mb[1] > 4 * mb[0]


def test_occupancy_iou_and_ap():
    per, geo = occupancy_iou(np.array([1, 1, 0, 2]), np.array([1, 0, 0, 2]), 3)
    assert per[0] == 0.5 and per[1] == 1.0 and np.isnan(per[2]) and geo == 2 / 3
    gt = [np.array([[1, 0.0, 0, 0, 1, 1, 1, 0], [1, 5.0, 0, 0, 1, 1, 1, 0]])]
    pr = [np.array([[1, 0.1, 0, 0, 1, 1, 1, 0, 0.9], [1, 9.0, 0, 0, 1, 1, 1, 0, 0.8], [1, 5.2, 0, 0, 1, 1, 1, 0, 0.5]])]
    # ranks: TP (recall .5, precision 1), FP, TP (recall 1, precision 2/3) -> AP = .5 * 1 + .5 * 2/3
    assert center_distance_ap(pr, gt, 1, 0.5) == pytest.approx(0.5 + 0.5 * 2 / 3)
    assert center_distance_ap(pr, gt, 1, 0.05) == 0.0
    with pytest.raises(InputError, match="label"):   # no ground truth of class 2: AP undefined, not a number
        center_distance_ap(pr, gt, 2, 1.0)
