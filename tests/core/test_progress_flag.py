"""One flag for progress bars: ``progress=`` everywhere; the old spellings warn and still work."""
import importlib
import inspect
import pkgutil
import warnings

import pytest

import iclr26sci
from iclr26sci.core import InputError, resolve_progress

OLD = ("show_progress", "progress_bar")


def _public_callables():
    for mod in pkgutil.walk_packages(iclr26sci.__path__, "iclr26sci."):
        if any(part.startswith("_") for part in mod.name.split(".")[1:]) or mod.name.endswith("cli"):
            continue
        try:
            m = importlib.import_module(mod.name)
        except ImportError:  # an optional extra that is not installed
            continue
        for name in getattr(m, "__all__", []):
            obj = getattr(m, name, None)
            if inspect.isclass(obj):
                yield f"{mod.name}.{name}", obj.__init__
                for meth_name, meth in vars(obj).items():
                    if callable(meth) and not meth_name.startswith("_"):
                        yield f"{mod.name}.{name}.{meth_name}", meth
            elif callable(obj):
                yield f"{mod.name}.{name}", obj


def test_every_public_signature_uses_progress_and_old_names_only_as_deprecated_aliases():
    offenders = []
    for qual, fn in _public_callables():
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        for old in OLD:
            if old in params and "progress" not in params:
                offenders.append(f"{qual}({old}=)")
    assert not offenders, "use progress= (old spellings only as deprecated aliases): " + ", ".join(offenders)


def test_resolve_progress_maps_and_warns():
    assert resolve_progress(None) is None
    assert resolve_progress(True) is True
    with pytest.warns(FutureWarning, match="show_progress"):
        assert resolve_progress(None, show_progress=False) is False
    with pytest.warns(FutureWarning, match="progress_bar"):
        assert resolve_progress(False, progress_bar=False) is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve_progress(False, progress_bar=None) is False


@pytest.mark.bad_input("core.resolve_progress")
@pytest.mark.parametrize("kw", [dict(progress="yes"), dict(progress=None, show_progress=1)])
def test_resolve_progress_rejects_non_bools(kw):
    progress = kw.pop("progress")
    with pytest.raises(InputError):
        resolve_progress(progress, **kw)


def test_conflicting_spellings_are_refused():
    with pytest.raises(InputError, match="progress_bar"), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        resolve_progress(True, progress_bar=False)


def test_map_replicates_accepts_the_old_flag_with_a_warning():
    from iclr26sci.core import map_replicates

    with pytest.warns(FutureWarning):
        out = map_replicates(_entropy, [0, 1], executor="serial", progress_bar=False)
    assert len(out) == 2
    assert map_replicates(_entropy, [0, 1], executor="serial", progress=False) == out


def _entropy(seed):
    return seed.entropy
