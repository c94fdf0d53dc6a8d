"""Round trips of the field's flow formats (Middlebury .flo, KITTI 16-bit PNG) and the paired-modality loader,
on files the tests write in those layouts."""
import numpy as np
import pytest
from PIL import Image

from iclr26sci.core import InputError
from iclr26sci.opticalflow import (DCFlow, load_paired_folder, read_flo, read_kitti_flow, write_flo,
                                   write_kitti_flow)


def test_flo_round_trip_and_layout(tmp_path):
    rng = np.random.default_rng(0)
    f = rng.normal(scale=20, size=(7, 11, 2)).astype(np.float32)
    p = tmp_path / "frame.flo"
    write_flo(p, f)
    raw = p.read_bytes()
    # the layout by hand: tag, width, height, then u, v interleaved row-major
    assert np.frombuffer(raw[:4], "<f4")[0] == np.float32(202021.25)
    assert tuple(np.frombuffer(raw[4:12], "<i4")) == (11, 7)
    data = np.frombuffer(raw[12:], "<f4")
    assert data.size == 7 * 11 * 2
    assert data[0] == f[0, 0, 0] and data[1] == f[0, 0, 1] and data[2] == f[0, 1, 0]
    assert np.array_equal(read_flo(p), f)


def test_flo_reads_a_file_written_by_hand(tmp_path):
    p = tmp_path / "hand.flo"
    u = np.arange(6, dtype="<f4").reshape(2, 3)
    v = -u
    body = np.stack([u, v], -1).astype("<f4").tobytes()
    p.write_bytes(np.float32(202021.25).tobytes() + np.array([3, 2], "<i4").tobytes() + body)
    f = read_flo(p)
    assert f.shape == (2, 3, 2) and np.array_equal(f[..., 0], u) and np.array_equal(f[..., 1], v)


@pytest.mark.parametrize("payload,what", [
    (np.array([1.0], "<f4").tobytes() + np.array([2, 2], "<i4").tobytes() + b"\0" * 32, "tag"),
    (np.float32(202021.25).tobytes() + np.array([2, 2], "<i4").tobytes() + b"\0" * 31, "bytes"),
    (np.float32(202021.25).tobytes() + np.array([0, 2], "<i4").tobytes(), "size"),
    (b"\0" * 5, "bytes"),
])
def test_flo_bad_files(tmp_path, payload, what):
    p = tmp_path / "bad.flo"
    p.write_bytes(payload)
    with pytest.raises(InputError, match=what) as e:
        read_flo(p)
    assert e.value.argument == "path"


def test_kitti_round_trip_quantisation_and_valid(tmp_path):
    rng = np.random.default_rng(1)
    f = rng.uniform(-200, 200, size=(9, 13, 2))
    ok = rng.random((9, 13)) > 0.3
    p = tmp_path / "000000_10.png"
    write_kitti_flow(p, f, ok)
    g, v = read_kitti_flow(p)
    assert np.array_equal(v, ok)
    assert np.abs(g[ok] - f[ok]).max() <= 0.5 / 64 + 1e-12          # 1/64 px quantisation
    assert np.all(g[~ok] == 0)
    # the channel layout by hand: R = u * 64 + 2^15, G = v * 64 + 2^15, B = valid (OpenCV reads B, G, R)
    import cv2

    raw = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
    assert raw.dtype == np.uint16 and raw.shape == (9, 13, 3)
    i, j = np.argwhere(ok)[0]
    assert raw[i, j, 2] == np.rint(f[i, j, 0] * 64 + 2 ** 15) and raw[i, j, 1] == np.rint(f[i, j, 1] * 64 + 2 ** 15)
    assert raw[i, j, 0] == 1


def test_kitti_exact_on_the_grid(tmp_path):
    f = np.array([[[1 / 64, -511.0], [0.0, 511.0]]])
    p = tmp_path / "g.png"
    write_kitti_flow(p, f)
    g, v = read_kitti_flow(p)
    assert np.array_equal(g, f) and v.all()


def test_kitti_bad_files(tmp_path):
    p8 = tmp_path / "eight.png"
    Image.fromarray(np.zeros((3, 3, 3), np.uint8)).save(p8)
    with pytest.raises(InputError, match="16-bit"):
        read_kitti_flow(p8)
    pg = tmp_path / "grey16.png"
    Image.fromarray(np.zeros((3, 3), np.uint16)).save(pg)
    with pytest.raises(InputError, match="3-channel"):
        read_kitti_flow(pg)
    with pytest.raises(InputError, match="range") as e:
        write_kitti_flow(tmp_path / "out.png", np.full((2, 2, 2), 700.0))
    assert e.value.argument == "flow" and not (tmp_path / "out.png").exists()
    # out-of-range flow on invalid pixels is fine (written as 0)
    ok = np.array([[True, False], [True, True]])
    f = np.zeros((2, 2, 2))
    f[0, 1] = 1e6
    write_kitti_flow(tmp_path / "out.png", f, ok)
    assert np.array_equal(read_kitti_flow(tmp_path / "out.png")[1], ok)


def _rig(tmp_path, names_a, names_b, shape_b=(20, 24)):
    rng = np.random.default_rng(2)
    da, db = tmp_path / "rgb", tmp_path / "thermal"
    da.mkdir()
    db.mkdir()
    for n in names_a:
        Image.fromarray((rng.random((20, 24, 3)) * 255).astype(np.uint8)).save(da / f"{n}.png")
    for n in names_b:   # thermal frames as 16-bit grey, as radiometric cameras export them
        Image.fromarray((rng.random(shape_b) * 65535).astype(np.uint16)).save(db / f"{n}.png")
    return da, db


def test_paired_folder_matches_by_name(tmp_path):
    da, db = _rig(tmp_path, ["0003", "0001", "0002"], ["0002", "0001", "0003"])
    (da / "notes.txt").write_text("not a frame")
    fr = load_paired_folder(da, db)
    assert fr.names == ["0001", "0002", "0003"] and len(fr) == 3
    assert fr.image_a.shape == (3, 20, 24, 3) and fr.image_b.shape == (3, 20, 24)
    ref = np.asarray(Image.open(db / "0002.png")).astype(np.float32) / 65535
    assert np.allclose(fr.image_b[1], ref, atol=1e-6)
    assert 0 <= fr.image_a.min() and fr.image_a.max() <= 1
    # resize when the cameras differ in resolution; DCFlow trains on the loaded pairs
    fr2 = load_paired_folder(da, db, size=(16, 16))
    assert fr2.image_a.shape == (3, 16, 16, 3)
    DCFlow(batch_size=2, rng=0).fit(fr2, steps=1)


def test_paired_folder_missing_partner_before_reading(tmp_path):
    da, db = _rig(tmp_path, ["0001", "0002"], ["0001"])
    with pytest.raises(InputError, match="no partner") as e:
        load_paired_folder(da, db)
    assert e.value.argument == "folder_b"
    da2, db2 = _rig(tmp_path / "x", ["0001"], ["0001", "0009"]) if (tmp_path / "x").mkdir() is None else (None, None)
    with pytest.raises(InputError, match="0009") as e:
        load_paired_folder(da2, db2)
    assert e.value.argument == "folder_a"


def test_paired_folder_sizes_must_agree(tmp_path):
    da, db = _rig(tmp_path, ["0001"], ["0001"], shape_b=(10, 12))
    with pytest.raises(InputError) as e:
        load_paired_folder(da, db)
    assert e.value.argument == "size"
    assert load_paired_folder(da, db, size=(10, 12)).image_b.shape == (1, 10, 12)
