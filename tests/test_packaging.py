"""Packaging: a lean core, family extras, an import error that names the extra, and a clean-venv install.

The fast tests read pyproject.toml and run the core methods in a subprocess in which every optional dependency
is made unimportable. The slow test builds the wheel, installs it with the core only into a fresh venv
(no system site-packages) and runs the causal quick start and a games example there.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
EXTRAS = PROJECT["optional-dependencies"]

#: the core may hold only these distributions (the analytic methods need nothing more)
CORE = {"numpy", "scipy", "pandas", "scikit-learn", "tqdm", "networkx", "highspy"}
#: modules that must not be in the core; the subprocess below makes them unimportable
OPTIONAL_MODULES = ("torch", "torchvision", "gpytorch", "pyro", "open3d", "transformers", "peft", "trl", "diffusers",
                    "gymnasium", "stable_baselines3", "sb3_contrib", "torch_geometric", "botorch", "mujoco", "cvxpy",
                    "matplotlib", "cv2", "skimage", "gensim", "sentence_transformers", "hypothesis", "dask",
                    "distributed", "h5py", "mne", "ot", "causaldata", "anny", "pyvista", "pybullet", "pybullet_data")

#: the causal quick start on a DataFrame with bool columns and string treatments, and two games examples
EXAMPLES = textwrap.dedent('''
    import sys
    import numpy as np, pandas as pd
    from sklearn.model_selection import cross_val_score
    from iclr26sci.causal import SharpPolicyLearner, sharp_value_bounds
    from iclr26sci.games import PolymatrixGame, solve_equilibrium, dp_equilibrium

    rng = np.random.default_rng(0)
    n = 600
    df = pd.DataFrame({"age": rng.uniform(20, 70, n), "smoker": rng.random(n) < 0.3})
    u = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(0.04 * (df.age - 45) + 0.8 * u)))
    df["treatment"] = np.where(rng.random(n) < p, "drug", "placebo")
    df["bp"] = 140 - 8 * (df.treatment == "drug") * (df.age > 45) + 5 * df.smoker + 4 * u + rng.normal(0, 5, n)
    X = df[["age", "smoker"]]
    learner = SharpPolicyLearner(gamma=2.0, cv=3, rng=0).fit(X, df.treatment, df.bp)
    assert list(learner.classes_) == ["drug", "placebo"], learner.classes_
    assert set(learner.predict(X)) <= {"drug", "placebo"}
    b = sharp_value_bounds((X, df.treatment, df.bp), "placebo", gamma=2.0, rng=0)
    print(b)
    scores = cross_val_score(SharpPolicyLearner(gamma=2.0, cv=3, rng=0), X, df[["treatment", "bp"]], cv=3)
    assert np.all(np.isfinite(scores)), scores
    zs = PolymatrixGame.random(n_players=16, n_actions=3, p=0.5, payoffs="zero_sum", rng=0)
    x = solve_equilibrium(zs)
    assert x.certified and x.max_gap < 1e-8, x.max_gap
    g = PolymatrixGame.random(n_players=64, n_actions=3, p=0.5, payoffs="private_values", rng=0)
    res = dp_equilibrium(g, epsilon=4.0, delta=1e-5, observed_channels=1, rng=0)
    assert 0 <= res.max_gap < 10, res.max_gap
    heavy = sorted(m for m in {OPTIONAL} if m in sys.modules)
    assert not heavy, heavy
    print("examples ok")
''').replace("{OPTIONAL}", repr(set(OPTIONAL_MODULES)))


def _name(req: str) -> str:
    return re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0].strip().lower()


def test_core_is_lean_and_every_family_has_its_extra():
    core = {_name(r) for r in PROJECT["dependencies"]}
    assert core <= CORE, f"heavy dependencies in the core: {sorted(core - CORE)}"
    for heavy in ("torch", "open3d", "gpytorch", "cvxpy", "transformers", "matplotlib"):
        assert heavy not in core
    from iclr26sci.core._lazy import MODULE_EXTRA, PACKAGE_EXTRA

    import iclr26sci

    assert set(PACKAGE_EXTRA) | {"core", "prob"} == set(iclr26sci._SUBPACKAGES)
    for extra in set(PACKAGE_EXTRA.values()) | set(MODULE_EXTRA.values()):
        assert extra in EXTRAS, f"the import errors name [{extra}], which pyproject does not define"
    in_all = set(re.search(r"\[(.*)\]", EXTRAS["all"][0]).group(1).split(","))
    assert set(EXTRAS) - in_all == {"all", "test", "bench"}, set(EXTRAS) - in_all
    # make setup installs .[all,test]: the set-up script's import check must be covered by them
    everything = {_name(r) for e in EXTRAS.values() for r in e}
    assert {"torch", "open3d", "gpytorch", "cvxpy"} <= everything


def _blocked_python(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run ``code`` in a subprocess where the optional modules cannot be imported (as in a core-only install)."""
    blocker = textwrap.dedent(f'''
        import importlib.abc, sys
        BLOCKED = {set(OPTIONAL_MODULES)!r}
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in BLOCKED:
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
                return None
        sys.meta_path.insert(0, Block())
    ''')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", blocker + code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)


def test_core_methods_run_without_the_optional_dependencies(tmp_path):
    r = _blocked_python(EXAMPLES, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "examples ok" in r.stdout


def test_a_missing_extra_is_named_on_import(tmp_path):
    code = textwrap.dedent('''
        import iclr26sci
        cases = [("iclr26sci.kernels", "PixelRBFGP", "kernels"), ("iclr26sci.causal", "MLPPolicy", "causal"),
                 ("iclr26sci.scene3d", "SSDGS", "3d"), ("iclr26sci.rl", "MVR", "rl"),
                 ("iclr26sci.embeddings", "DiagLaplaceLinear", "embeddings"), ("iclr26sci.testing", "strategies", "test")]
        for pkg, name, extra in cases:
            try:
                exec(f"from {pkg} import {name}")
            except ModuleNotFoundError as e:
                assert f'pip install "iclr26sci[{extra}]"' in str(e), str(e)
                assert e.name, e
            else:
                raise AssertionError(f"{pkg}.{name} imported without its extra")
        print("named ok")
    ''')
    r = _blocked_python(code, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "named ok" in r.stdout


def _du_mb(path: Path, skip_pycache: bool = False) -> float:
    total = 0
    for dirpath, dirnames, filenames in os.walk(path):
        if skip_pycache and "__pycache__" in dirnames:
            dirnames.remove("__pycache__")
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total / 2**20


#: pip output that means no package index could serve a core dependency (offline, no local mirror)
_NO_INDEX = ("No matching distribution found", "Could not find a version", "NewConnectionError",
             "Temporary failure in name resolution", "Network is unreachable")


@pytest.mark.slow
def test_wheel_installs_core_only_into_a_clean_venv(tmp_path):
    # 1. the wheel, built from a copy of the packaged sources (no build/ or egg-info left in the checkout)
    src = tmp_path / "src"
    src.mkdir()
    for f in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / f, src / f)
    for d in ("iclr26sci", "data_adapters", "validation"):
        shutil.copytree(ROOT / d, src / d, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dist = tmp_path / "dist"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "--wheel-dir", str(dist), str(src)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    wheel, = dist.glob("iclr26sci-*.whl")

    # 2. a fresh venv without system site-packages; the core from the configured package index
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    empty_mb = _du_mb(site, skip_pycache=True)   # pip (and setuptools) of the venv itself
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-compile", "--find-links", str(dist),
                        str(wheel)], capture_output=True, text=True, env=env, timeout=900)
    if r.returncode != 0 and any(s in r.stdout + r.stderr for s in _NO_INDEX):
        pytest.skip("no package index or local mirror can serve the core dependencies here: "
                    + (r.stderr.strip().splitlines() or ["?"])[-1])
    assert r.returncode == 0, r.stderr[-3000:]
    freeze = subprocess.run([str(py), "-m", "pip", "freeze"], capture_output=True, text=True, env=env).stdout
    names = {_name(line) for line in freeze.splitlines() if line.strip()}
    assert not names & {"torch", "open3d", "gpytorch", "cvxpy", "matplotlib", "transformers"}, names

    # 3. the installed size: the files pip wrote (without the bytecode caches, which Python writes on use)
    installed_mb = _du_mb(site, skip_pycache=True) - empty_mb
    print(f"\ncore install: {installed_mb:.0f} MB of files in {site} (beyond the empty venv's {empty_mb:.0f} MB)")
    assert installed_mb < 300, f"the core install takes {installed_mb:.0f} MB"

    # 4. the causal quick start (DataFrame, string treatments) and the games examples, outside the checkout
    run = tmp_path / "run"
    run.mkdir()
    r = subprocess.run([str(py), "-c", EXAMPLES], cwd=run, capture_output=True, text=True,
                       env={**env, "OMP_NUM_THREADS": "1"}, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "examples ok" in r.stdout
    r = subprocess.run([str(venv / "bin" / "iclr26sci"), "--version"], capture_output=True, text=True, env=env,
                       cwd=run, timeout=120)
    assert r.returncode == 0 and "0.1.0" in r.stdout + r.stderr, r.stderr[-2000:]
