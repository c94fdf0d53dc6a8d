"""The 3-D data adapters, each on its real installed file; missing packages name their install command."""
from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from data_adapters import _geom3d as G
from iclr26sci.core import InputError

needs_visp = pytest.mark.skipif(not os.path.isdir(G.CASTLE_DIR), reason="apt-get install -y visp-images-data")
needs_cgal = pytest.mark.skipif(not os.path.exists(G.CGAL_TAR), reason="apt-get install -y libcgal-demo")


@needs_visp
def test_castle_simu_depth_agrees_with_pose_and_intrinsics():
    mv = G.load_castle_simu(views=[0, 10], downsample=4)
    assert mv.images.shape == (2, 120, 160) and mv.depths.shape == (2, 120, 160)
    assert 0 <= mv.images.min() and mv.images.max() <= 1 and mv.K[0, 0] == 175.0
    assert 0.2 < mv.depths[mv.depths > 0].min() and mv.depths.max() < 2.0
    # back-project view 0's depth to the world with its pose and re-project into view 10 with its pose:
    # the castle's points land inside the image and on castle pixels of view 10 (depth-consistent)
    c0, c1 = mv.camera(0), mv.camera(1)
    v, u = np.nonzero(mv.depths[0] > 0)
    uv = torch.as_tensor(np.stack([u + 0.5, v + 0.5], 1), dtype=torch.float64)
    X = c0.unproject(uv, torch.as_tensor(mv.depths[0][v, u]))
    uv1, z1 = c1.project(X)
    i, j = uv1[:, 1].floor().long(), uv1[:, 0].floor().long()
    ok = (i >= 0) & (i < 120) & (j >= 0) & (j < 160)
    d1 = torch.as_tensor(mv.depths[1])[i[ok], j[ok]]
    vis = (d1 > 0) & ((z1[ok] - d1).abs() < 0.01)          # 1 cm: visible in both views, same surface
    assert ok.float().mean() > 0.9 and vis.float().mean() > 0.5


@needs_visp
def test_visp_sequences():
    assert {"mire-2", "cube"} <= set(G.visp_sequence_names())
    seq = G.load_visp_sequence("cube", frames=[0, 3])
    assert seq.ndim == 3 and seq.shape[0] == 2 and 0 <= seq.min() <= seq.max() <= 1


@needs_cgal
def test_cgal_mesh_and_points():
    names = G.cgal_names("mesh")
    assert len(names) > 100 and "elephant.off" in names
    V, F = G.load_cgal_mesh("elephant")
    assert V.shape[1] == 3 and F.shape[1] == 3 and F.max() < len(V) and len(F) > 1000
    pts, nrm = G.load_cgal_point_cloud("kitten.xyz")
    assert pts.shape[1] == 3 and len(pts) > 1000


def test_off_parser_fan_triangulates():
    V, F = G._parse_off(b"OFF\n# a square\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n")
    assert V.shape == (4, 3) and F.tolist() == [[0, 1, 2], [0, 2, 3]]


def test_stereo_motorcycle_disparity():
    left, right, disp = G.load_stereo_motorcycle()
    assert left.shape == right.shape == disp.shape and np.nanmax(disp[np.isfinite(disp)]) > 10
    # ground-truth disparity maps left pixels onto matching right pixels: the warped right image is
    # closer to the left one than the unwarped right image
    h, w = left.shape
    ys, xs = np.nonzero(np.isfinite(disp) & (disp > 0))
    xr = np.round(xs - disp[ys, xs]).astype(int)
    ok = (xr >= 0) & (xr < w)
    warped = np.abs(left[ys[ok], xs[ok]] - right[ys[ok], xr[ok]]).mean()
    assert warped < 0.5 * np.abs(left[ys[ok], xs[ok]] - right[ys[ok], xs[ok]]).mean()


def test_pyvista_mesh_or_install_hint():
    try:
        import pyvista  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pyvista"):
            G.load_pyvista_mesh("ant")
        return
    V, F = G.load_pyvista_mesh("ant")
    assert V.shape[1] == 3 and F.shape[1] == 3 and F.max() < len(V)


@pytest.mark.bad_input("data_adapters.load_deepmimic_clip", "geom.load_deepmimic_clip")
def test_deepmimic_clip_or_install_hint():
    try:
        import pybullet_data  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pybullet"):
            G.load_deepmimic_clip("walk")
        return
    with pytest.raises(InputError, match="name"):
        G.load_deepmimic_clip("moonwalk")
    clip = G.load_deepmimic_clip("walk")
    assert clip["frames"].shape[1] == 43 and len(clip["duration"]) > 10


def test_missing_debian_package_names_install_command(monkeypatch):
    monkeypatch.setattr(G, "CASTLE_DIR", "/nonexistent/Castle-simu")
    with pytest.raises(FileNotFoundError, match="apt-get install -y visp-images-data"):
        G.load_castle_simu()
    monkeypatch.setattr(G, "CGAL_TAR", "/nonexistent/data.tar.gz")
    G._cgal_members.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="apt-get install -y libcgal-demo"):
            G.load_cgal_mesh("elephant")
    finally:
        G._cgal_members.cache_clear()


@needs_visp
@needs_cgal
@pytest.mark.bad_input("data_adapters.load_castle_simu", "data_adapters.load_visp_sequence",
                       "data_adapters.load_cgal_mesh", "data_adapters.load_cgal_point_cloud",
                       "data_adapters.cgal_names", "data_adapters.load_stereo_motorcycle",
                       "data_adapters.load_pyvista_mesh")
def test_bad_names_and_arguments():
    with pytest.raises(InputError, match="views"):
        G.load_castle_simu(views=[40])
    with pytest.raises(InputError, match="views"):
        G.load_castle_simu(views=[])
    with pytest.raises(InputError, match="downsample"):
        G.load_castle_simu(downsample=0)
    with pytest.raises(InputError, match="name"):
        G.load_visp_sequence("castle")
    with pytest.raises(InputError, match="frames"):
        G.load_visp_sequence("cube", frames=[10_000])
    with pytest.raises(InputError, match="name"):
        G.load_cgal_mesh("no_such_mesh")
    with pytest.raises(InputError, match="kind"):
        G.cgal_names("volumes")
    with pytest.raises(InputError, match="name"):
        G.load_cgal_point_cloud(3)
    with pytest.raises(InputError, match="grey"):
        G.load_stereo_motorcycle(grey="yes")
    with pytest.raises(InputError, match="name"):
        G.load_pyvista_mesh("teapot")
