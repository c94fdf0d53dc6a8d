"""Bad input to every public name of scene3d.josh: a clear InputError naming the argument, before any work."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.scene3d import josh as J


@pytest.fixture(scope="module")
def video():
    return J.human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)


@pytest.fixture(scope="module")
def inputs(video):
    return video.observations("none", rng=0)


def _kw(inp, **over):
    d = inp.to_dict()
    d.update(over)
    return d


@pytest.mark.bad_input("scene3d.JOSHInputs")
@pytest.mark.parametrize("field, value, arg", [
    ("body_pose", lambda i: i.body_pose[:1], "body_pose"),                          # inconsistent frame counts
    ("contact", lambda i: i.contact[:1], "contact"),
    ("body_translation", lambda i: np.zeros((3, 3)), "body_translation"),
    ("body_pose", lambda i: i.body_pose[:, :69], "body_pose"),                      # wrong pose length
    ("body_focal", lambda i: 0.0, "body_focal"),                                    # focal <= 0
    ("body_focal", lambda i: -5.0, "body_focal"),
    ("depth", lambda i: i.depth[:1], "depth"),                                      # fewer than 2 frames
    ("depth", lambda i: -i.depth, "depth"),
    ("confidence", lambda i: i.confidence * 2, "confidence"),
    ("human_mask", lambda i: i.human_mask.astype(int), "human_mask"),
    ("matches", lambda i: [], "matches"),
    ("frame_index", lambda i: np.zeros(i.n_frames), "frame_index"),
    ("keypoints", lambda i: np.zeros((i.n_frames, 17, 2)), "keypoints"),
])
def test_inputs_refuse_bad_arrays(inputs, field, value, arg):
    with pytest.raises(InputError, match=arg):
        J.JOSHInputs(**_kw(inputs, **{field: value(inputs)}))


@pytest.mark.bad_input("scene3d.JOSHInputs")
def test_nan_keypoints_are_masked(inputs):
    kp = np.zeros((inputs.n_frames, 24, 2))
    kp[0, 3] = np.nan
    inp = J.JOSHInputs(**_kw(inputs, keypoints=kp))
    # the legitimate answer for a NaN keypoint is a value: confidence 0 (masked), not an error
    assert inp.keypoint_conf[0, 3] == 0 and inp.keypoint_conf[0, 4] == 1 and np.isfinite(inp.keypoints).all()


@pytest.mark.bad_input("scene3d.PairMatches")
def test_bad_matches(inputs):
    m = inputs.matches[0]
    bad = J.PairMatches(m.i, m.j, m.pix_i, m.pix_j[:-1], m.depth_i, m.depth_j, m.conf)
    with pytest.raises(InputError, match="matches"):
        J.JOSHInputs(**_kw(inputs, matches=[bad]))
    with pytest.raises(InputError, match="matches"):
        J.JOSHInputs(**_kw(inputs, matches=[J.PairMatches(1, 0, m.pix_i, m.pix_j, m.depth_i, m.depth_j, m.conf)]))


@pytest.mark.bad_input("scene3d.JOSH")
@pytest.mark.parametrize("kw, arg", [
    (dict(focal_init=0.0), "focal_init"), (dict(focal_init=-100.0), "focal_init"),
    (dict(phases=("fine", "coarse")), "phases"), (dict(phases="coarse"), "phases"),
    (dict(n_iter=(10,)), "n_iter"), (dict(lr=(0.0, 0.1)), "lr"), (dict(w_c1=-1.0), "w_c1"),
    (dict(strategy="x"), "strategy"), (dict(optimize_human=1), "optimize_human"), (dict(focal_search="yes"), "focal_search"),
    (dict(gamma=(1.1, 0.4)), "gamma"), (dict(depth_filter_ratio=0.5), "depth_filter_ratio"),
    (dict(dtype="float16"), "dtype"), (dict(max_matches=3), "max_matches"), (dict(init_cameras="x"), "init_cameras"),
])
def test_josh_refuses_bad_parameters(inputs, kw, arg):
    with pytest.raises(InputError, match=arg):
        J.JOSH(**kw).fit(inputs)


@pytest.mark.bad_input("scene3d.JOSH")
def test_fit_and_evaluate_refuse_bad_arguments(inputs, video):
    with pytest.raises(InputError, match="inputs"):
        J.JOSH().fit({"depth": 1})
    with pytest.raises(InputError, match="init"):
        J.JOSH(n_iter=(0, 0)).fit(inputs, init={"nonsense": 1})
    with pytest.raises(InputError, match="result"):
        J.JOSH.evaluate(None, video.ground_truth)
    res = J.JOSH(n_iter=(1, 0), phases=("coarse",)).fit(inputs)
    with pytest.raises(InputError, match="ground_truth"):
        J.JOSH.evaluate(res, {"joints": 1})


@pytest.mark.bad_input("scene3d.JOSHResult")
def test_result_is_built_by_fit_only(inputs):
    res = J.JOSH(n_iter=(1, 0), phases=("coarse",)).fit(inputs)
    with pytest.raises(InputError, match="result"):
        J.JOSH.evaluate(res.to_dict(), None)


@pytest.mark.bad_input("scene3d.human_scene_video")
@pytest.mark.parametrize("kw, arg", [
    (dict(motion="dance"), "motion"), (dict(scene="forest"), "scene"), (dict(camera="drone"), "camera"),
    (dict(frames=1), "frames"), (dict(frames=3, keyframe_every=3), "frames"), (dict(focal=0.0), "focal"),
    (dict(width=2), "width"), (dict(scene_scale=-1.0), "scene_scale"), (dict(fps=0), "fps"),
    (dict(backend="gpu"), "backend"),
])
def test_video_refuses_bad_arguments(kw, arg):
    with pytest.raises(InputError, match=arg):
        J.human_scene_video(**kw)


@pytest.mark.bad_input("scene3d.HumanSceneVideo")
@pytest.mark.parametrize("kw, arg", [
    (dict(noise="heavy"), "noise"), (dict(n_matches=2), "n_matches"), (dict(window=0), "window"),
    (dict(outlier_rate=1.0), "outlier_rate"), (dict(hmr_focal=0.0), "hmr_focal"),
])
def test_observations_refuse_bad_arguments(video, kw, arg):
    with pytest.raises(InputError, match=arg):
        video.observations(**kw)


@pytest.mark.bad_input("scene3d.gamma_loss")
def test_gamma_loss_bad_input():
    with pytest.raises(InputError, match="gamma"):
        J.gamma_loss(1.0, 0.0)
    with pytest.raises(InputError, match="r"):
        J.gamma_loss(-1.0, 1.1)
    with pytest.raises(InputError, match="r"):
        J.gamma_loss(np.nan, 1.1)


@pytest.mark.bad_input("scene3d.w_mpjpe", "scene3d.wa_mpjpe", "scene3d.foot_sliding", "scene3d.ate")
def test_metrics_bad_input():
    a = np.zeros((3, 24, 3))
    with pytest.raises(InputError, match="gt"):
        J.w_mpjpe(a, a[:2])
    with pytest.raises(InputError, match="n_align"):
        J.w_mpjpe(a, a, n_align=0)
    with pytest.raises(InputError, match="gt"):
        J.wa_mpjpe(a, a[:, :3])
    with pytest.raises(InputError, match="pred"):
        J.wa_mpjpe(np.full_like(a, np.nan), a)
    with pytest.raises(InputError, match="contact"):
        J.foot_sliding(a, np.ones((3, 24)))
    with pytest.raises(InputError, match="gt_centres"):
        J.ate(np.zeros((4, 3)), np.zeros((3, 3)))
