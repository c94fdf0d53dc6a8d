"""load_olat_capture reads a tiny OLAT capture that the test writes in the SSD-GS / NRHints layout
(transforms_<split>.json with camera_angle_x or camera_intrinsics, per-frame transform_matrix in OpenGL axes and
pl_pos, RGBA PNG images), and refuses bad captures with InputError before decoding any image."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch
from PIL import Image

from iclr26sci.core import InputError
from iclr26sci.geom import Camera
from iclr26sci.scene3d.ssdgs import SSDGS, OLATSet, load_olat_capture


def _c2w_opengl(eye, target=(0.0, 0.0, 0.0), up=(0.0, 0.0, 1.0)):
    """A Blender/OpenGL camera-to-world matrix (x right, y up, z back) looking from eye at target."""
    eye, target, up = (np.asarray(v, float) for v in (eye, target, up))
    back = eye - target
    back /= np.linalg.norm(back)
    right = np.cross(up, back)
    right /= np.linalg.norm(right)
    upv = np.cross(back, right)
    M = np.eye(4)
    M[:3, 0], M[:3, 1], M[:3, 2], M[:3, 3] = right, upv, back, eye
    return M


def write_capture(root, n=3, W=10, H=8, mode="angle", rgba=True, split="train", extra=None):
    """Write a capture: n frames on a ring, RGBA PNGs with a known pattern, one light per frame."""
    os.makedirs(os.path.join(root, split), exist_ok=True)
    rng = np.random.default_rng(0)
    frames, pix, eyes, lights = [], [], [], []
    for i in range(n):
        a = 2 * np.pi * i / n
        eye = [3 * np.cos(a), 3 * np.sin(a), 1.0]
        im = rng.integers(0, 256, (H, W, 4 if rgba else 3), dtype=np.uint8)
        if rgba:
            im[..., 3] = 255
            im[0, 0, 3] = 0                               # one transparent pixel: composited on the background
        Image.fromarray(im).save(os.path.join(root, split, f"r_{i:03d}.png"))
        L = [np.cos(a + 1), np.sin(a + 1), 2.0]
        fr = {"file_path": f"{split}/r_{i:03d}", "transform_matrix": _c2w_opengl(eye).tolist(), "pl_pos": L}
        if mode == "frame_intrinsics":
            fr["camera_intrinsics"] = [W / 2 + 0.5, H / 2 - 0.5, 11.0 + i, 12.0 + i]
        frames.append(fr)
        pix.append(im)
        eyes.append(eye)
        lights.append(L)
    meta = {"frames": frames}
    if mode == "angle":
        meta["camera_angle_x"] = 0.9
    elif mode == "intrinsics":
        meta["camera_intrinsics"] = [W / 2, H / 2, 9.0, 9.5]
    meta.update(extra or {})
    with open(os.path.join(root, f"transforms_{split}.json"), "w") as f:
        json.dump(meta, f)
    return np.array(pix), np.array(eyes), np.array(lights)


def test_reads_the_layout_with_camera_angle_x(tmp_path):
    pix, eyes, lights = write_capture(tmp_path)
    s = load_olat_capture(tmp_path, points=np.zeros((5, 3)))
    assert isinstance(s, OLATSet) and s.images.shape == (3, 8, 10, 3)
    np.testing.assert_allclose(s.images[1].reshape(-1, 3)[1:], (pix[1][..., :3] / 255.0).reshape(-1, 3)[1:], atol=1e-12)
    assert s.images[0, 0, 0].max() == 0.0                               # transparent pixel on black
    np.testing.assert_allclose(s.lights, lights)
    f = 0.5 * 10 / np.tan(0.45)
    for cam, eye in zip(s.cameras, eyes):
        np.testing.assert_allclose(cam.centre.numpy(), eye, atol=1e-12)
        assert cam.fx == pytest.approx(f) and cam.fy == pytest.approx(f) and (cam.cx, cam.cy) == (5.0, 4.0)
        # the OpenGL camera looks at the origin: it projects to the principal point, in front of the camera
        uv, z = cam.project(torch.zeros(1, 3, dtype=torch.float64))
        np.testing.assert_allclose(uv.numpy()[0], [5.0, 4.0], atol=1e-9)
        assert float(z[0]) > 0
        # image "up" (OpenGL +y) is world +z here: a point above the origin has a smaller row v
        uv2, _ = cam.project(torch.tensor([[0.0, 0.0, 0.5]], dtype=torch.float64))
        assert float(uv2[0, 1]) < 4.0
    assert np.allclose(s.intensity, 1.0)


def test_white_background_and_intrinsics(tmp_path):
    write_capture(tmp_path, mode="intrinsics")
    s = load_olat_capture(tmp_path, white_background=True, intensity=5.0)
    assert np.allclose(s.images[0, 0, 0], 1.0) and np.allclose(s.intensity, 5.0)
    c = s.cameras[2]
    assert (c.fx, c.fy, c.cx, c.cy) == (9.0, 9.5, 5.0, 4.0)
    assert s.points is None


def test_per_frame_intrinsics_and_intensity(tmp_path):
    write_capture(tmp_path, mode="frame_intrinsics")
    meta = json.load(open(tmp_path / "transforms_train.json"))
    meta["frames"][1]["pl_intensity"] = [2.0, 2.0, 2.0]
    json.dump(meta, open(tmp_path / "transforms_train.json", "w"))
    s = load_olat_capture(tmp_path, max_frames=2)
    assert len(s) == 2 and s.cameras[1].fx == 12.0 and s.cameras[1].cy == 3.5
    assert s.intensity.tolist() == [1.0, 2.0]


def test_fit_runs_on_a_loaded_capture(tmp_path):
    write_capture(tmp_path, rgba=False)
    rng = np.random.default_rng(1)
    pts = rng.normal(size=(40, 3)) * 0.3
    s = load_olat_capture(tmp_path, points=pts)
    m = SSDGS(n_gaussians=20, n_steps=2, rng=0, progress=False).fit(s)
    assert m.relight(s.cameras[0], s.lights[0]).shape == (8, 10, 3)


def _edit(root, fn):
    p = os.path.join(root, "transforms_train.json")
    meta = json.load(open(p))
    fn(meta)
    json.dump(meta, open(p, "w"))


def _scaled(meta):
    M = np.array(meta["frames"][0]["transform_matrix"])
    M[:3, :3] *= 2.0
    meta["frames"][0]["transform_matrix"] = M.tolist()


def _reflected(meta):
    M = np.array(meta["frames"][0]["transform_matrix"])
    M[:3, 0] *= -1
    meta["frames"][0]["transform_matrix"] = M.tolist()


@pytest.mark.bad_input("scene3d.load_olat_capture")
@pytest.mark.parametrize("edit, text", [
    (lambda m: m["frames"][0].pop("pl_pos"), "pl_pos"),
    (lambda m: m["frames"][1].pop("transform_matrix"), "transform_matrix"),
    (lambda m: m["frames"][0].update(pl_pos=[1.0, 2.0]), "pl_pos"),
    (_scaled, "not a rotation"),
    (_reflected, "not a rotation"),
    (lambda m: m["frames"][0]["transform_matrix"].__setitem__(3, [0, 0, 1, 1]), "last row"),
    (lambda m: m["frames"][0].update(file_path="train/missing"), "does not exist"),
    (lambda m: m["frames"][0].pop("file_path"), "file_path"),
    (lambda m: m.pop("camera_angle_x"), "intrinsics"),
    (lambda m: m.update(camera_angle_x=4.0), "camera_angle_x"),
    (lambda m: m.update(frames=[]), "frames"),
    (lambda m: m["frames"][0].update(pl_intensity=[1.0, 2.0, 3.0]), "coloured"),
    (lambda m: m["frames"][0].update(pl_intensity=-1.0), "pl_intensity"),
])
def test_bad_captures_are_refused_before_decoding(tmp_path, monkeypatch, edit, text):
    write_capture(tmp_path)
    _edit(tmp_path, edit)
    import iclr26sci.scene3d._ssdgs_io as io

    decoded = []
    monkeypatch.setattr(Image, "open", lambda *a, **k: decoded.append(a) or (_ for _ in ()).throw(AssertionError))
    monkeypatch.setattr(io, "_png_size", lambda p: (10, 8))
    with pytest.raises(InputError, match=text):
        load_olat_capture(tmp_path)
    assert not decoded


@pytest.mark.bad_input("scene3d.load_olat_capture")
def test_bad_arguments(tmp_path):
    write_capture(tmp_path)
    with pytest.raises(InputError, match="split"):
        load_olat_capture(tmp_path, split="test")
    with pytest.raises(InputError, match="is not a folder"):
        load_olat_capture(tmp_path / "nope")
    with pytest.raises(InputError, match="extension"):
        load_olat_capture(tmp_path, extension=".jpg")
    with pytest.raises(InputError, match="points"):
        load_olat_capture(tmp_path, points=np.zeros((3, 2)))
    (tmp_path / "transforms_bad.json").write_text("{not json")
    with pytest.raises(InputError, match="JSON"):
        load_olat_capture(tmp_path, split="bad")


def test_exr_without_a_reader_says_what_to_install(tmp_path, monkeypatch):
    write_capture(tmp_path)
    _edit(tmp_path, lambda m: m["frames"][0].update(img_path="train/r_000.exr"))
    (tmp_path / "train" / "r_000.exr").write_bytes(b"\x76\x2f\x31\x01")      # OpenEXR magic number only
    import iclr26sci.scene3d._ssdgs_io as io

    monkeypatch.setattr(io, "_exr_reader", lambda p: None)
    with pytest.raises(InputError, match="pip install OpenEXR"):
        load_olat_capture(tmp_path)


def test_images_of_different_sizes(tmp_path):
    write_capture(tmp_path)
    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tmp_path / "train" / "r_001.png")
    with pytest.raises(InputError, match="different sizes"):
        load_olat_capture(tmp_path)


def test_loaded_camera_matches_look_at():
    """The OpenGL -> OpenCV conversion gives the same camera as Camera.look_at from the same eye."""
    import tempfile

    with tempfile.TemporaryDirectory() as root:
        _, eyes, _ = write_capture(root, n=2)
        s = load_olat_capture(root)
        ref = Camera.look_at(eyes[0].tolist(), [0.0, 0.0, 0.0], up=[0.0, 0.0, 1.0], fx=1.0, fy=1.0, width=10,
                             height=8, dtype=torch.float64)
        np.testing.assert_allclose(s.cameras[0].R.numpy(), ref.R.numpy(), atol=1e-9)
