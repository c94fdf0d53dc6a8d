"""Simulators: analytic laws at test size, reproducibility, and refusal of bad parameters."""
from __future__ import annotations

import math

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.microsim import fit_msd, growth_rate, msd, simulate, solve_diffusion, stokes_einstein, velocity_profile


def test_brownian_law_and_seed():
    a = simulate("brownian", n_particles=100, D=0.5, dt=0.05, steps=200, rng=3)
    b = simulate("brownian", n_particles=100, D=0.5, dt=0.05, steps=200, rng=3)
    np.testing.assert_array_equal(a.positions, b.positions)
    res = fit_msd(a, fit_intercept=False)
    assert abs(res.D - 0.5) < 4 * res.D_se
    assert "Tracks(kind='brownian'" in repr(a) and a.to_dict()["truth"]["D"] == 0.5


def test_stokes_einstein_value():
    # k_B T / (6 pi eta a) for water at 25 C and a = 0.5 um: 4.116e-21 / (6 pi 8.9e-4 5e-7) m^2/s
    assert stokes_einstein(298.15, 8.9e-4, 0.5) == pytest.approx(1.380649e-23 * 298.15 / (6 * math.pi * 8.9e-4 * 5e-7) * 1e12)
    tr = simulate("brownian", temperature=298.15, viscosity=8.9e-4, radius=0.5, steps=5, rng=0)
    assert tr.truth["D"] == pytest.approx(stokes_einstein(298.15, 8.9e-4, 0.5))


def test_trap_stationary_variance():
    tr = simulate("trap", n_particles=100, D=0.5, stiffness=0.04, dt=0.05, steps=300, rng=1)
    x = tr.positions - np.asarray(tr.truth["centres"])[None]
    assert np.mean(x ** 2) == pytest.approx(tr.truth["variance"], rel=0.06)
    eu = simulate("trap", n_particles=100, D=0.5, stiffness=0.04, dt=0.05, steps=300, method="euler", rng=1)
    xe = eu.positions - np.asarray(eu.truth["centres"])[None]
    assert np.mean(xe ** 2) > 1.08 * tr.truth["variance"]   # Euler's bias 1/(1 - k dt / 2)


def test_diffusion_mass_variance_and_ftcs_flag():
    f = simulate("diffusion", grid=48, dx=0.5, D=0.5, sigma0=2.0, dt=0.1, steps=50)
    m = f.mass()
    assert np.max(np.abs(m / m[0] - 1)) < 1e-12
    var = f.variance()
    assert (var[-1] - var[0]) == pytest.approx(2 * 0.5 * 5.0, rel=0.02)
    bad = solve_diffusion(f.c[0], 0.5, 0.5, 0.2, 10, method="ftcs")   # r = 0.4 > 1/4
    assert not bad.stable and "stable=False" in repr(bad)
    ok = solve_diffusion(f.c[0], 0.5, 0.5, 0.1, 10, method="ftcs")    # r = 0.2 <= 1/4
    assert ok.stable


def test_chemotaxis_drift_and_run_tumble():
    lv = simulate("chemotaxis", n_particles=400, D=0.5, chi=1.0, gradient=(1.0, 0.0), steps=200, rng=0)
    v = (lv.positions[-1] - lv.positions[0]).mean(0) / 10.0
    assert v[0] == pytest.approx(1.0, abs=0.05) and abs(v[1]) < 0.05
    rt = simulate("chemotaxis", mode="run_tumble", n_particles=50, speed=10.0, tumble_rate=2.0, steps=50, rng=0)
    step = np.linalg.norm(np.diff(rt.positions, axis=0), axis=-1)
    assert np.allclose(step, 10.0 * 0.05)   # constant speed
    assert rt.truth["D_eff"] == pytest.approx(100 / 4)


def test_division_euler_lotka_and_volume():
    col = simulate("division", shape=4.0, mean_cycle=1.0, n_max=4000, rng=0)
    fit = growth_rate(col.times, col.counts, min_count=500)
    assert fit.rate == pytest.approx((2 ** 0.25 - 1) / 0.25, rel=0.05)
    assert col.volume_error < 1e-12
    sp = simulate("division", n0=2, spatial=True, n_max=12, frame_dt=0.1, rng=0)
    assert len(sp.frames) > 3 and sp.frames[-1][0].shape[1] == 2


def test_poiseuille_profile():
    tr = simulate("poiseuille", n_particles=300, u_max=5.0, radius=10.0, D=0.05, steps=100, rng=0)
    p = velocity_profile(tr)
    assert p.r_squared > 0.98 and p.u_max == pytest.approx(5.0, rel=0.05) and p.reynolds < 1e-3


def test_msd_ballistic_exact():
    x = np.arange(6.0)[:, None, None] * np.array([1.0, 0.0])
    lags, m, c = msd(x, 0.5, max_lag=3)
    np.testing.assert_allclose(m, [1, 4, 9])
    np.testing.assert_allclose(lags, [0.5, 1.0, 1.5])


@pytest.mark.bad_input("microsim.simulate", "microsim.stokes_einstein", "microsim.solve_diffusion")
@pytest.mark.parametrize("kind,kw,arg", [
    ("brownian", {"D": 0.0}, "D"), ("brownian", {"D": -1.0}, "D"), ("brownian", {"D": 0.5, "dt": 0.0}, "dt"),
    ("brownian", {"D": 0.5, "dt": -0.1}, "dt"), ("brownian", {}, "D"), ("brownian", {"D": float("nan")}, "D"),
    ("brownian", {"temperature": 0.0, "radius": 0.5}, "temperature"),
    ("brownian", {"D": 0.5, "steps": 0}, "steps"), ("brownian", {"D": 0.5, "d": 4}, "d"),
    ("brownian", {"D": 0.5, "n_particles": 2.5}, "n_particles"), ("brownian", {"D": 0.5, "bogus": 1}, "bogus"),
    ("trap", {"temperature": -5.0}, "temperature"), ("trap", {"stiffness": 0.0}, "stiffness"),
    ("trap", {"D": 0.5, "method": "rk4"}, "method"), ("chemotaxis", {"D": 0.0}, "D"),
    ("chemotaxis", {"mode": "swim"}, "mode"), ("chemotaxis", {"mode": "run_tumble", "speed": 0.0}, "speed"),
    ("poiseuille", {"u_max": -1.0}, "u_max"), ("division", {"shape": 0.0}, "shape"),
    ("diffusion", {"D": 0.0}, "D"), ("diffusion", {"dt": 0.0}, "dt"), ("nonsense", {}, "kind"),
])
def test_simulate_bad_parameters(kind, kw, arg):
    with pytest.raises(InputError, match=f"`{arg}`"):
        simulate(kind, **kw)


@pytest.mark.bad_input("microsim.stokes_einstein", "microsim.solve_diffusion")
def test_stokes_and_solver_bad_input():
    with pytest.raises(InputError, match="temperature"):
        stokes_einstein(0.0, 8.9e-4, 0.5)
    with pytest.raises(InputError, match="viscosity"):
        stokes_einstein(300, -1, 0.5)
    with pytest.raises(InputError, match="radius"):
        stokes_einstein(300, 8.9e-4, 0)
    with pytest.raises(InputError, match="c0"):
        solve_diffusion(np.full(10, np.nan), 1.0, 0.1, 0.01, 2)
    with pytest.raises(InputError, match="D"):
        solve_diffusion(np.ones(10), 0.0, 0.1, 0.01, 2)
    with pytest.raises(InputError, match="method"):
        solve_diffusion(np.ones(10), 1.0, 0.1, 0.01, 2, method="euler")
