"""Bad input to every public name of iclr26sci.core: a clear InputError naming the argument."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from iclr26sci.core import (
    Estimate,
    InputError,
    ObservationalData,
    as_generator,
    check_array,
    check_bool,
    check_consistent_length,
    check_in_range,
    check_is_fitted,
    check_memory,
    check_option,
    check_positive_int,
    check_probability_vector,
    map_replicates,
    progress,
    progress_enabled,
    seed_sequence,
    spawn,
    torch_generator,
)

BAD_INPUT_EXEMPT = {
    "core.InputError": "the exception type itself: its arguments are free text chosen by the raising code",
    "core.NotFittedError": "an exception type raised by check_is_fitted; its arguments are free text",
    "core.progress_enabled": "takes no arguments; reads the environment and whether stderr is a terminal",
}


@pytest.mark.bad_input("core.check_array")
@pytest.mark.parametrize("call, arg", [
    (lambda: check_array([1e30], "A", dtype=int), "A"),
    (lambda: check_array([-1e19], "A", dtype=int), "A"),
    (lambda: check_array([2**70], "A", dtype=int), "A"),
    (lambda: check_array(np.array([1 + 1j]), "Z"), "Z"),
    (lambda: check_array([1.0, 2.0], "X", ndim=2), "X"),
    (lambda: check_array([[1.0], [np.inf]], "X"), "X"),
    (lambda: check_array(np.array([np.nan + 0j]), "Z", dtype=complex), "Z"),
    (lambda: check_array(["a"], "S"), "S"),
    (lambda: check_array({"a": 1}, "D"), "D"),
])
def test_check_array_bad(call, arg):
    with pytest.raises(InputError, match=f"`{arg}`"):
        call()


def test_check_array_good_edges():
    assert check_array([-2.0 ** 63], "A", dtype=int)[0] == np.iinfo(np.int64).min
    assert check_array(np.array([2**63 - 1], dtype=np.uint64), "A", dtype=int)[0] == 2**63 - 1
    assert check_array([True, False], "A", dtype=int).tolist() == [1, 0]
    assert check_array([1 + 1j], "Z", dtype=complex).dtype == complex
    with pytest.raises(InputError, match=r"reshape\(1, -1\)"):
        check_array(np.zeros(3), "X", ndim=2)


@pytest.mark.bad_input("core.check_in_range", "core.check_positive_int", "core.check_option", "core.check_bool",
                       "core.check_probability_vector", "core.check_consistent_length")
def test_scalar_validators_bad():
    for v in (float("nan"), "0.5", True, 1 + 0j, None, [0.5]):
        with pytest.raises(InputError, match="`alpha`"):
            check_in_range(v, "alpha", 0, 1)
    with pytest.raises(InputError, match="`alpha`"):  # a 0-d array is an array, not a number (audit core.019)
        check_in_range(np.array(0.5), "alpha", 0, 1)
    assert check_in_range(np.float32(0.5), "alpha", 0, 1) == 0.5
    for v in (0, -1, 2.0, "3", True, np.bool_(True)):
        with pytest.raises(InputError, match="`k`"):
            check_positive_int(v, "k")
    for v in ("tmle", None, 3, np.array(["dr"]), ["dr"]):
        with pytest.raises(InputError, match="`estimator`"):
            check_option(v, "estimator", ["dr", "ipw"])
    assert check_option(None, "x", [None, "auto"]) is None
    for v in ("no", 1, 0, None, "True"):
        with pytest.raises(InputError, match="`normalize`"):
            check_bool(v, "normalize")
    for v in ([0.5, 0.6], [[0.5, 0.5], [0.2, 0.2]], [-0.1, 1.1], [], [[np.nan, 1.0]]):
        with pytest.raises(InputError, match="`p`"):
            check_probability_vector(v, "p")
    with pytest.raises(InputError, match="`a`"):
        check_consistent_length(a=3, b=[1])
    with pytest.raises(InputError, match="`X`"):
        check_consistent_length(X=np.zeros(2), y=np.zeros(3))


@pytest.mark.bad_input("core.check_is_fitted", "core.check_memory")
def test_fitted_and_memory_guards():
    from sklearn.exceptions import NotFittedError as SkNotFitted

    from iclr26sci.core import NotFittedError

    class Est:
        coef_ = None

    with pytest.raises(NotFittedError, match="Est.predict") as ei:
        check_is_fitted(Est(), "coef_", method="predict")
    assert isinstance(ei.value, SkNotFitted) and isinstance(ei.value, InputError)
    with pytest.raises(InputError, match="`attributes`"):
        check_is_fitted(Est(), 5)
    with pytest.raises(InputError, match="`attributes`"):
        check_is_fitted(Est(), [])
    with pytest.raises(InputError, match="`method`"):
        check_is_fitted(Est(), "coef_", method=3)
    with pytest.raises(InputError, match=r"`theta`.*TiB"):
        check_memory(218 * 2.0**40, "theta", "the return grid")
    with pytest.raises(InputError, match="`nbytes`"):
        check_memory("big", "theta", "x")
    with pytest.raises(InputError, match="`nbytes`"):
        check_memory(-1, "theta", "x")
    check_memory(1e3, "theta", "x")


@pytest.mark.bad_input("core.as_generator", "core.seed_sequence", "core.spawn", "core.torch_generator")
def test_rng_bad():
    for f in (as_generator, seed_sequence, torch_generator):
        for v in (-1, "seed", 1.5, True):
            with pytest.raises(InputError, match="`rng`"):
                f(v)
    for n in (-1, 1.0, "3", True):
        with pytest.raises(InputError, match="`n`"):
            spawn(0, n)
    with pytest.raises(InputError, match="`device`"):
        torch_generator(0, device="nope")
    with pytest.raises(InputError, match="`device`"):
        torch_generator(0, device=3)


def _sq(seed):
    return float(as_generator(seed).random())


@pytest.mark.bad_input("core.map_replicates", "core.progress")
def test_map_replicates_and_progress_bad():
    for v in (5, np.random.SeedSequence(0), object()):
        with pytest.raises(InputError, match="`seeds`"):
            map_replicates(_sq, v)
    with pytest.raises(InputError, match=r"`seeds\[1\]`"):
        map_replicates(_sq, [0, -1])
    with pytest.raises(InputError, match="`fn`"):
        map_replicates(3, [0])
    with pytest.raises(InputError, match="`executor`"):
        map_replicates(_sq, [0], executor="threads")
    with pytest.raises(InputError, match="`n_workers`"):
        map_replicates(_sq, [0], n_workers=0)
    with pytest.raises(InputError, match="`scheduler`"):
        map_replicates(_sq, [0], scheduler="tcp://x:1")
    with pytest.raises(InputError, match="`progress_bar`"):
        map_replicates(_sq, [0], progress_bar="no")
    with pytest.raises(InputError, match="`iterable`"):
        progress(5)
    with pytest.raises(InputError, match="`enabled`"):
        progress([1], enabled="yes")
    with pytest.raises(InputError, match="`total`"):
        progress([1], total=-1)


@pytest.mark.bad_input("core.Estimate")
def test_estimate_bad():
    for kw, arg in [({"value": float("nan")}, "value"), ({"value": "abc"}, "value"), ({"value": None}, "value"),
                    ({"value": 1.0, "stderr": -1.0}, "stderr"), ({"value": 1.0, "stderr": float("inf")}, "stderr"),
                    ({"value": 1.0, "n": 0}, "n"), ({"value": 1.0, "n": 2.5}, "n"), ({"value": 1.0, "name": 3}, "name"),
                    ({"value": 1.0, "extra": [1]}, "extra")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            Estimate(**kw)
    e = Estimate(1.0, 0.1)
    for meth in (e.conf_int, e.lower_bound, e.upper_bound, e.summary):
        for a in (0.0, 1.0, -1, 2, "x", float("nan")):
            with pytest.raises(InputError, match="`alpha`"):
                meth(a)
    assert np.isnan(Estimate(1.0).conf_int()[0])   # unknown standard error: an unknown interval, not an error


@pytest.mark.bad_input("core.ObservationalData")
def test_observational_data_bad():
    X, A, Y = np.zeros((4, 2)), [0, 1, 0, 1], np.arange(4.0)
    cases = [((X[0], A, Y), {}, "X"), ((X, [0, 1, 0, 10**12], Y), {}, "A"), ((X, [0, 1, 0, 1.5], Y), {}, "A"),
             ((X, A, Y), {"feature_names": "ab"}, "feature_names"), ((X, A, Y), {"arm_names": ["a"]}, "arm_names"),
             ((X, A, Y), {"source": 3}, "source"), ((X, A, Y), {"meta": []}, "meta"),
             ((np.zeros((0, 2)), [], []), {}, "X")]
    for args, kw, arg in cases:
        with pytest.raises(InputError, match=f"`{arg}`"):
            ObservationalData(*args, **kw)
    d = ObservationalData(X, A, Y)
    for idx in ([0, 99], [], [0.5], [-1], np.ones(3, bool)):
        with pytest.raises(InputError, match="`idx`"):
            d.subset(idx)
    assert d.subset(np.array([True, False, True, False])).n == 2
    # with arm_names, an unobserved arm is legitimate
    assert ObservationalData(X, A, Y, arm_names=["a", "b", "c"]).n_arms == 3


def test_results_short_repr_summary_to_dict():
    import json

    e = Estimate(0.5, 0.01, name="value", n=10**6, extra={"big": list(range(3))})
    assert len(repr(e)) < 100 and "0.5" in e.summary()
    json.dumps(e.to_dict())
    d = ObservationalData(np.zeros((1000, 3)), np.arange(1000) % 2, np.ones(1000), arm_names=["c", "t"])
    assert len(repr(d)) < 100 and "c: 500" in d.summary()
    json.dumps(d.to_dict())
    assert d == d.subset(np.arange(1000)) and d != d.subset(np.arange(10))   # arrays compared elementwise


def test_progress_silent_off_terminal_and_under_ci(monkeypatch, capfd):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("ICLR26SCI_NO_PROGRESS", raising=False)
    items = list(range(5))
    assert progress(items) is items            # pytest's captured stderr is not a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert progress_enabled()
    monkeypatch.setenv("CI", "true")
    assert not progress_enabled() and progress(items) is items
    assert capfd.readouterr().err == ""


def test_progress_is_cheap_when_silent():
    import timeit

    items = [1]
    per_call = min(timeit.repeat(lambda: progress(items), number=2000, repeat=3)) / 2000
    assert per_call < 2e-4   # an environment lookup and an isatty call: about a microsecond on an idle core


def _run_script(tmp_path, body, timeout=120):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=timeout,
                          cwd=tmp_path, env=env)


def test_dask_without_main_guard_says_what_to_do(tmp_path):
    pytest.importorskip("distributed")
    r = _run_script(tmp_path, """
        from iclr26sci.core import map_replicates, spawn

        def f(seed):
            return 1

        print(map_replicates(f, spawn(0, 2), executor="dask", n_workers=1))
    """)
    assert r.returncode != 0
    assert "if __name__ == \"__main__\":" in r.stderr and "InputError" in r.stderr
    assert "RuntimeError: Nanny failed" not in r.stderr + r.stdout   # no worker was ever started


@pytest.mark.slow
def test_dask_with_main_guard_runs(tmp_path):
    pytest.importorskip("distributed")
    r = _run_script(tmp_path, """
        from iclr26sci.core import map_replicates, spawn

        def f(seed):
            return 1

        def main():
            print(map_replicates(f, spawn(0, 2), executor="dask", n_workers=1))

        if __name__ == "__main__":
            main()
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().endswith("[1, 1]")


def test_main_guard_detector():
    import ast

    from iclr26sci.core._parallel import _guarded

    src = "x = 1\nif __name__ == '__main__':\n    y = 2\n    z = 3\nw = 4\n"
    tree = ast.parse(src)
    assert [_guarded(tree, i) for i in range(1, 6)] == [False, False, True, True, False]
    assert _guarded(ast.parse("if '__main__' == __name__:\n    f()\n"), 2)
