"""Bad input to iclr26sci.scene3d.ssdgs: every case raises InputError naming the argument, before any work."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.scene3d.ssdgs import (SSDGS, Decomposition, OLATSet, RelightingScores, asg_lobe, dipole_profile,
                                     dipole_total_reflectance, light_space_visibility, olat_scene, schlick_fresnel)

NAN = float("nan")

BAD_INPUT_EXEMPT = {"scene3d.Decomposition": "a plain result container built by SSDGS.decompose",
                    "scene3d.RelightingScores": "a plain result container built by SSDGS.evaluate",
                    "scene3d.OLATData": "a container of two validated OLATSets (their checks are tested)"}


@pytest.fixture(scope="module")
def data():
    return olat_scene(mesh="sphere", cameras=2, train_lights=2, test_lights=1, size=12, rng=0, light_samples=1,
                      backend="numpy")


@pytest.fixture(scope="module")
def model(data):
    return SSDGS(n_gaussians=60, n_steps=2, rng=0).fit(data.train)


@pytest.mark.bad_input("scene3d.olat_scene")
@pytest.mark.parametrize("kw, arg", [
    ({"mesh": "no-such-mesh"}, "mesh"), ({"mesh": 3}, "mesh"),
    ({"mesh": (np.zeros((3, 3)), np.array([[0, 1, 5]]))}, "mesh"),
    ({"materials": "plastic"}, "materials"), ({"cameras": 0}, "cameras"), ({"train_lights": 0}, "train_lights"),
    ({"test_lights": -1}, "test_lights"), ({"size": 2}, "size"), ({"intensity": 0.0}, "intensity"),
    ({"intensity": -3.0}, "intensity"), ({"light_radius": -0.1}, "light_radius"),
    ({"material": {"albedo": 1.5}}, "albedo"), ({"material": {"albedo": [0.2, -0.1, 0.3]}}, "albedo"),
    ({"material": {"sigma_s": -1.0}}, "sigma_s"), ({"material": {"sigma_a": 0.0}}, "sigma_a"),
    ({"material": {"shininess": 3}}, "material"), ({"material": [1, 2]}, "material"),
])
def test_olat_scene_bad_input(kw, arg):
    args = dict(mesh="sphere", cameras=1, train_lights=1, test_lights=1, size=8, rng=0, backend="numpy")
    args.update(kw)
    with pytest.raises(InputError, match=arg):
        olat_scene(**args)


@pytest.mark.bad_input("scene3d.OLATSet")
def test_olatset_counts_must_agree(data):
    s = data.train
    with pytest.raises(InputError, match="cameras"):
        OLATSet(images=s.images, cameras=s.cameras[:-1], lights=s.lights, intensity=s.intensity)
    with pytest.raises(InputError, match="lights"):
        OLATSet(images=s.images, cameras=s.cameras, lights=s.lights[:-1], intensity=s.intensity)
    with pytest.raises(InputError, match="intensity"):
        OLATSet(images=s.images, cameras=s.cameras, lights=s.lights, intensity=-1.0)
    with pytest.raises(InputError, match="images"):
        OLATSet(images=s.images[..., :2], cameras=s.cameras, lights=s.lights, intensity=1.0)
    with pytest.raises(InputError, match="index"):
        s.subset([len(s)])


@pytest.mark.bad_input("scene3d.SSDGS")
@pytest.mark.parametrize("kw, arg", [
    ({"n_gaussians": 0}, "n_gaussians"), ({"n_gaussians": -5}, "n_gaussians"), ({"n_gaussians": 2.5}, "n_gaussians"),
    ({"n_steps": -1}, "n_steps"), ({"schedule": "random"}, "schedule"), ({"ablation": "G"}, "ablation"),
    ({"appearance": "nerf"}, "appearance"), ({"dipole": "ssdgs"}, "dipole"), ({"normal_init": "x"}, "normal_init"),
    ({"lr_scale": 0.0}, "lr_scale"), ({"shadow_offset": -1.0}, "shadow_offset"), ({"progress": "yes"}, "progress"),
    ({"device": "nowhere"}, "device"), ({"densify": "yes"}, "densify"), ({"densify_grad": 0.0}, "densify_grad"),
    ({"densify_grad": NAN}, "densify_grad"), ({"percent_dense": -0.1}, "percent_dense"),
    ({"prune_opacity": 0.5}, "prune_opacity"), ({"prune_opacity": 0.0}, "prune_opacity"),
    ({"densify_from": -1}, "densify_from"), ({"densify_every": 0}, "densify_every"),
    ({"opacity_reset_every": 2.5}, "opacity_reset_every"), ({"densify_from": 50, "densify_until": 20}, "densify_until"),
    ({"max_gaussians": 5}, "max_gaussians"), ({"max_gaussians": 1.5}, "max_gaussians"),
])
def test_ssdgs_params_bad_input(data, kw, arg):
    with pytest.raises(InputError, match=arg):
        SSDGS(**{"n_gaussians": 10, "n_steps": 1, **kw}).fit(data.train)


@pytest.mark.bad_input("scene3d.SSDGS")
def test_ssdgs_fit_bad_data():
    with pytest.raises(InputError, match="data"):
        SSDGS(n_gaussians=10, n_steps=1).fit(np.zeros((2, 8, 8, 3)))


@pytest.mark.bad_input("scene3d.SSDGS")
def test_ssdgs_unfitted():
    m = SSDGS()
    for call in (lambda: m.relight(None, [0, 0, 3]), lambda: m.decompose(None, [0, 0, 3]), lambda: m.evaluate(None)):
        with pytest.raises(NotFittedError):
            call()


@pytest.mark.bad_input("scene3d.SSDGS")
def test_ssdgs_relight_bad_light(model, data):
    cam = data.test.cameras[0]
    inside = model.params_["means"][0].detach().numpy()
    with pytest.raises(InputError, match="light"):
        model.relight(cam, inside)                                     # a light inside the object
    with pytest.raises(InputError, match="light"):
        model.relight(cam, cam.centre.numpy())                         # a light at the camera
    with pytest.raises(InputError, match="light"):
        model.relight(cam, [0.0, np.nan, 3.0])
    with pytest.raises(InputError, match="light"):
        model.relight(cam, [0.0, 3.0])
    with pytest.raises(InputError, match="intensity"):
        model.relight(cam, data.test.lights[0], intensity=0.0)        # non-positive intensity
    with pytest.raises(InputError, match="intensity"):
        model.relight(cam, data.test.lights[0], intensity=[1.0, -1.0, 1.0])
    with pytest.raises(InputError, match="camera"):
        model.decompose("cam", data.test.lights[0])
    with pytest.raises(InputError, match="data"):
        model.evaluate([1, 2])


@pytest.mark.bad_input("scene3d.schlick_fresnel")
def test_fresnel_bad_input():
    with pytest.raises(InputError, match="f0"):
        schlick_fresnel([0.5], f0=1.5)
    with pytest.raises(InputError, match="cos_theta"):
        schlick_fresnel([np.nan])
    with pytest.raises(InputError, match="cos_theta"):
        schlick_fresnel("abc")


@pytest.mark.bad_input("scene3d.asg_lobe")
@pytest.mark.parametrize("kw, arg", [
    ({"h": [[0.0, 0.0, 2.0]]}, "h"), ({"h": [[0.0, 1.0]]}, "h"), ({"frame": np.ones((3, 3))}, "frame"),
    ({"frame": np.eye(4)}, "frame"), ({"lam": -1.0}, "lam"), ({"mu": 0.0}, "mu"), ({"sigma": [0.1, 0.2]}, "sigma"),
])
def test_asg_bad_input(kw, arg):
    args = {"h": [[0.0, 0.0, 1.0]], "frame": np.eye(3), "lam": 1.0, "mu": 1.0, "sigma": 0.3, **kw}
    with pytest.raises(InputError, match=arg):
        asg_lobe(**args)


@pytest.mark.bad_input("scene3d.dipole_profile", "scene3d.dipole_total_reflectance")
@pytest.mark.parametrize("kw, arg", [
    ({"r": -1.0}, "r"), ({"sigma_s_prime": -0.5}, "sigma_s_prime"), ({"sigma_a": 0.0}, "sigma_a"),
    ({"eta": 0.0}, "eta"), ({"variant": "ssd"}, "variant"), ({"sigma_a": np.inf}, "sigma_a"),
])
def test_dipole_bad_input(kw, arg):
    args = {"r": 0.5, "sigma_s_prime": 1.0, "sigma_a": 0.1, **kw}
    with pytest.raises(InputError, match=arg):
        dipole_profile(**args)
    if arg in ("sigma_s_prime", "sigma_a", "eta"):
        with pytest.raises(InputError, match=arg):
            dipole_total_reflectance(args["sigma_s_prime"], args["sigma_a"], args.get("eta", 1.3))


@pytest.mark.bad_input("scene3d.light_space_visibility")
def test_visibility_bad_input():
    m = torch.tensor([[0.0, 0, 0], [0.0, 0, 1.0]])
    q = torch.tensor([[1.0, 0, 0, 0]] * 2)
    s = torch.full((2, 3), -2.0)
    o = torch.zeros(2)
    with pytest.raises(InputError, match="light"):
        light_space_visibility(m, q, s, o, [0.0, 0.0, 0.0])           # inside a Gaussian
    with pytest.raises(InputError, match="means"):
        light_space_visibility(torch.zeros(0, 3), q[:0], s[:0], o[:0], [0.0, 0, 4])
    with pytest.raises(InputError, match="quats"):
        light_space_visibility(m, q[:1], s, o, [0.0, 0, 4])
    with pytest.raises(InputError, match="offset"):
        light_space_visibility(m, q, s, o, [0.0, 0, 4], offset=-1.0)
    with pytest.raises(InputError, match="width"):
        light_space_visibility(m, q, s, o, [0.0, 0, 4], width=0)


def test_result_containers_repr():
    z = np.zeros((2, 2, 3))
    d = Decomposition(z, z, z, z, np.ones((2, 2)), np.ones((2, 2)))
    assert "2x2" in repr(d) and set(d.to_dict()) >= {"image", "shadow"} and "energy" in d.summary()
    r = RelightingScores(psnr=1.0, ssim=0.5, component_mse={"diffuse": 0.1}, specular_leak=0.0, n_images=1,
                         per_image_psnr=np.array([1.0]), render_seconds=0.0)
    assert r.to_dict()["psnr"] == 1.0 and "PSNR" in r.summary()
