"""Lazy public names for a sub-package (PEP 562), so that importing it loads no heavy dependency.

A name whose module needs an optional dependency that is not installed raises a ``ModuleNotFoundError`` that
names the ``pip install "iclr26sci[EXTRA]"`` to run (:func:`missing_extra_error`).
"""
from __future__ import annotations

import importlib
import importlib.util
from typing import Mapping

#: the extra (pyproject's optional-dependencies) that brings each family's dependencies
PACKAGE_EXTRA = {
    "causal": "causal", "games": "games", "imitation": "imitation", "optim": "optim", "kernels": "kernels",
    "nn": "nn", "embeddings": "embeddings", "geom": "3d", "scene3d": "3d", "adaptation": "vision",
    "generative": "vision", "rl": "rl", "closedloop": "closedloop", "distill": "distill", "agents": "agents",
    "opticalflow": "flow", "microsim": "micro", "testing": "test",
}

#: optional modules whose extra does not depend on the family that imports them (torch, for one, does)
MODULE_EXTRA = {
    "cvxpy": "optim", "gpytorch": "kernels", "pyro": "kernels", "gensim": "embeddings", "open3d": "3d",
    "skimage": "3d", "anny": "3d", "pyvista": "3d", "pybullet": "3d", "pybullet_data": "3d",
    "transformers": "llm", "peft": "llm", "trl": "llm", "accelerate": "llm", "datasets": "llm", "sympy": "llm",
    "diffusers": "vision", "imagecorruptions": "vision", "cma": "vision", "gymnasium": "rl", "mujoco": "rl",
    "stable_baselines3": "rl", "sb3_contrib": "rl", "botorch": "closedloop", "mne": "closedloop",
    "choix": "distill", "torch_geometric": "agents", "cv2": "flow", "trackpy": "micro", "stardist": "micro",
    "tifffile": "micro", "matplotlib": "report", "ot": "report", "causaldata": "report", "h5py": "hdf5",
    "dask": "dask", "distributed": "dask", "hypothesis": "test",
}


def missing_extra_error(err: ModuleNotFoundError, what: str) -> ModuleNotFoundError:
    """The ``ModuleNotFoundError`` to raise when ``what`` (a dotted name) cannot load for a missing dependency.

    Its message names the missing module and the extra that installs it. The extra is the module's own when
    it belongs to one family (``trl`` -> ``llm``), else the family of the sub-package in ``what`` (``torch``
    under ``iclr26sci.kernels`` -> ``kernels``), else ``all``. An error about a module of iclr26sci itself
    (a bug, not a missing extra) is returned unchanged.

    Examples
    --------
    >>> e = missing_extra_error(ModuleNotFoundError("No module named 'torch'", name="torch"),
    ...                         "iclr26sci.kernels.PixelRBFGP")
    >>> print(e)
    iclr26sci.kernels.PixelRBFGP needs 'torch', which is not installed: pip install "iclr26sci[kernels]"
    >>> e.name
    'torch'
    """
    missing = (err.name or "").split(".")[0]
    if not missing or missing in ("iclr26sci", "data_adapters", "validation"):
        return err
    parts = what.split(".")
    family = parts[1] if len(parts) > 1 and parts[0] == "iclr26sci" else ""
    extra = MODULE_EXTRA.get(missing) or PACKAGE_EXTRA.get(family) or "all"
    new = ModuleNotFoundError(f"{what} needs {missing!r}, which is not installed: "
                              f'pip install "iclr26sci[{extra}]"', name=err.name)
    new.extra = extra
    return new


def load_name(package: str, module: str, name: str | None = None):
    """Import ``module`` (relative to ``package`` when it starts with a dot) and return its ``name``.

    With ``name=None`` the module itself is returned. A dependency that is not installed raises the
    :func:`missing_extra_error` of ``package.name``, so the message says which extra to install.

    Examples
    --------
    >>> load_name("iclr26sci.core", "._results", "Estimate").__name__
    'Estimate'
    """
    what = f"{package}.{name}" if name else importlib.util.resolve_name(module, package)
    try:
        mod = importlib.import_module(module, package)
        return mod if name is None else getattr(mod, name)
    except ModuleNotFoundError as err:
        new = missing_extra_error(err, what)
        if new is err:
            raise
        raise new from err


def lazy_loader(package: str, where: Mapping[str, str]):
    """Return ``(__getattr__, __dir__)`` for ``package`` whose public names live in private modules.

    ``where`` maps each public name to the private module (relative to ``package``) that defines it. A
    name is imported on first access and cached in the package's namespace. When its module needs a
    dependency that is not installed, the error names the extra to install (:func:`missing_extra_error`).

    Examples
    --------
    >>> getattr_, dir_ = lazy_loader("iclr26sci.core", {"Estimate": "_results"})
    >>> getattr_("Estimate").__name__
    'Estimate'
    """
    import sys

    def __getattr__(name: str):
        mod = where.get(name)
        if mod is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = load_name(package, f".{mod}", name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__


def literal_all(init_file: str, modules) -> dict[str, str]:
    """Map each name in the literal ``__all__`` of the sibling modules ``modules`` to its module.

    A package shared by several papers re-exports each public module's own ``__all__``. Reading the lists from
    the source (``ast``) rather than importing the modules keeps ``import package`` free of heavy imports; a
    module that does not exist (yet) contributes nothing.

    Examples
    --------
    >>> import iclr26sci.generative as g
    >>> where = literal_all(g.__file__, ["tempflow"])
    >>> where["FlowGRPOTrainer"]
    'tempflow'
    """
    import ast
    import pathlib

    out: dict[str, str] = {}
    for module in modules:
        path = pathlib.Path(init_file).with_name(f"{module}.py")
        if not path.exists():
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                out.update({name: module for name in ast.literal_eval(node.value)})
                break
    return out
