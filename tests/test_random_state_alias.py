"""Every estimator of the library that takes ``rng`` also takes ``random_state``, scikit-learn's name for it.

The meta-test walks every ``BaseEstimator`` subclass defined in ``iclr26sci`` (public or private; every module
is imported, modules of extras that are not installed are skipped) and asks, for each one with ``rng`` in its
constructor:

- ``random_state`` is a keyword of ``__init__`` with default None, stored unchanged (so ``get_params``,
  ``set_params`` and ``clone`` carry it);
- the class (or a base class of the library) reads it through :func:`iclr26sci.core.resolve_rng`;
- its ``rng`` default is None or 0, and the ones at 0 are the ones docs/examples.md names.

A few cheap estimators are then fitted to show that ``random_state=k`` gives what ``rng=k`` gives and that two
different seeds are refused.
"""
from __future__ import annotations

import importlib
import inspect
import pathlib
import pkgutil
import re
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

import iclr26sci
from iclr26sci.core import InputError

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _library_estimators():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for mod in pkgutil.walk_packages(iclr26sci.__path__, "iclr26sci."):
            try:
                importlib.import_module(mod.name)
            except ImportError:          # an extra that is not installed
                continue
    found = {c for c in _subclasses(BaseEstimator) if c.__module__.startswith("iclr26sci.")}
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


ESTIMATORS = _library_estimators()
WITH_RNG = [c for c in ESTIMATORS if "rng" in inspect.signature(c).parameters]


def _own_source(cls):
    """Source of the class and of its library base classes (where the shared fit loop may read the seed)."""
    return "\n".join(inspect.getsource(k) for k in cls.__mro__ if k.__module__.startswith("iclr26sci."))


def test_the_walk_finds_the_estimators():
    names = {c.__name__ for c in WITH_RNG}
    assert len(WITH_RNG) >= 30, len(WITH_RNG)
    assert {"SharpPolicyLearner", "MindPilot", "JOSH", "DCFlow", "RandomTeacher", "_UCBBase"} <= names


@pytest.mark.parametrize("cls", WITH_RNG, ids=lambda c: f"{c.__module__.split('.')[1]}.{c.__qualname__}")
def test_estimator_with_rng_takes_random_state(cls):
    params = inspect.signature(cls).parameters
    assert "random_state" in params, f"{cls.__qualname__} takes rng but not random_state"
    p = params["random_state"]
    assert p.default is None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    src = _own_source(cls)
    assert "self.random_state = random_state" in src
    assert re.search(r"resolve_rng\((self\.)?rng, (self\.)?random_state", src), (
        f"{cls.__qualname__} stores random_state but does not read it through resolve_rng")
    assert params["rng"].default in (None, 0)


def test_default_seeds_are_the_documented_ones():
    doc = (ROOT / "docs" / "examples.md").read_text()
    section = doc[doc.index("- **Seeding**"):doc.index("- **Errors**")]
    zero = {c.__name__ for c in WITH_RNG if inspect.signature(c).parameters["rng"].default == 0}
    named = set(re.findall(r"`(\w+)`", section[section.index("**Defaults**"):section.index("Functions")]))
    assert zero == named - {"rng", "random_state", "None"}, (zero, named)


def _required(cls):
    return [n for n, p in inspect.signature(cls).parameters.items()
            if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


@pytest.mark.parametrize("cls", [c for c in WITH_RNG if not _required(c) and not c.__name__.startswith("_")],
                         ids=lambda c: c.__qualname__)
def test_random_state_survives_get_params_set_params_and_clone(cls):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(random_state=3)
        assert est.get_params()["random_state"] == 3
        twin = clone(est)
        assert twin.random_state == 3 and twin.rng == est.rng
        assert twin.set_params(random_state=5).random_state == 5
        g = np.random.default_rng(1)
        assert cls(random_state=g).get_params()["random_state"] is g     # stored unchanged, not normalised


# ---- behaviour on cheap estimators -----------------------------------------------------------------------
def test_random_state_is_rng_for_a_policy():
    from iclr26sci.causal import SoftmaxLinearPolicy

    x = np.random.default_rng(0).uniform(-1, 1, size=(120, 2))
    G = np.column_stack([x[:, 0], -x[:, 0]])
    a = SoftmaxLinearPolicy(n_restarts=2, max_iter=30, random_state=4).fit(x, G).coef_
    b = SoftmaxLinearPolicy(n_restarts=2, max_iter=30, rng=4).fit(x, G).coef_
    np.testing.assert_array_equal(a, b)
    SoftmaxLinearPolicy(max_iter=30, rng=4, random_state=4).fit(x, G)           # the same seed twice is fine
    with pytest.raises(InputError, match="random_state"):
        SoftmaxLinearPolicy(max_iter=30, rng=4, random_state=5).fit(x, G)


def test_random_state_overrides_a_zero_default_and_conflicts_are_refused_at_construction():
    from iclr26sci.distill import RandomTeacher, SyntheticRationaleQA

    data = SyntheticRationaleQA(rng=0).generate(40)
    a, b, c = (RandomTeacher(random_state=7).purify(data).teacher, RandomTeacher(rng=7).purify(data).teacher,
               RandomTeacher().purify(data).teacher)
    np.testing.assert_array_equal(a, b)              # rng's default 0 yields to random_state
    assert not np.array_equal(a, c)
    with pytest.raises(InputError, match="random_state"):
        RandomTeacher(rng=1, random_state=2)       # validates in its constructor


def test_random_state_legacy_randomstate_seeds_a_strategy():
    from iclr26sci.geom import DefaultStrategy

    DefaultStrategy(random_state=np.random.RandomState(0))
    with pytest.raises(InputError, match="random_state"):
        DefaultStrategy(random_state=-1)
