"""The fast paths of rs_advantage (issue 44) against the reference implementation they replaced.

``reference`` below is the implementation of rs_advantage before the fast paths (pad the groups into a
matrix, shift by the row maximum, exp, divide by the row mean), kept verbatim as the oracle: the fast
paths must agree with it to 1e-12 on every input, with and without torch loaded.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, strategies as st

from iclr26sci.rl import rs_advantage
from iclr26sci.rl import _rs_fast


def reference(rewards, group_ids=None, beta=2.0):
    R = np.asarray(rewards, dtype=np.float64)
    if R.ndim == 2:
        valid, M, scatter = None, R, None
    else:
        ids = np.zeros(R.size, dtype=np.int64) if group_ids is None else np.asarray(group_ids)
        _, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(-1)
        order = np.argsort(inverse, kind="stable")
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rows = np.empty(R.size, dtype=np.int64)
        cols = np.empty(R.size, dtype=np.int64)
        rows[order] = inverse[order]
        cols[order] = np.arange(R.size) - starts[inverse[order]]
        M = np.zeros((counts.size, int(counts.max())))
        M[rows, cols] = R
        valid = np.zeros(M.shape, dtype=bool)
        valid[rows, cols] = True
        scatter = (rows, cols)
    n = M.shape[1] if valid is None else valid.sum(1)
    z = beta * M
    if valid is not None:
        z = np.where(valid, z, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    if abs(beta) < 1e-3:
        e = np.exp(z)
        A = np.expm1(z - np.log(e.sum(1, keepdims=True) / np.reshape(n, (-1, 1)))) / beta
    else:
        e = np.exp(z)
        s = e.sum(1, keepdims=True) / np.reshape(n, (-1, 1))
        A = (e / s - 1.0) / beta
    if valid is not None:
        A = np.where(valid, A, 0.0)
    A[np.broadcast_to(np.reshape(n, -1) == 1, (A.shape[0],))] = 0.0     # (the old code raised for 2-D G = 1)
    return A if scatter is None else A[scatter]


@pytest.fixture(params=["numpy", "torch"])
def backend(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setattr(_rs_fast, "_torch", lambda: None)
        monkeypatch.setattr(_rs_fast, "_exp", lambda a: np.exp(a, out=a))
    else:
        pytest.importorskip("torch")
    return request.param


KERNELS = ["numpy-kernel", "numba-kernel"]


def _use(kernel_name, monkeypatch=None):
    """Force the 1-D path's kernel (``_rs_fast.USE_NUMBA``); skip the numba variant without numba."""
    if kernel_name == "numba-kernel":
        pytest.importorskip("numba")
    value = kernel_name == "numba-kernel"
    if monkeypatch is not None:
        monkeypatch.setattr(_rs_fast, "USE_NUMBA", value)
    return value


@pytest.fixture(params=KERNELS)
def kernel(request, monkeypatch):
    """Every 1-D equality test runs on the numpy kernel and on the optional numba kernel (at every size)."""
    _use(request.param, monkeypatch)
    return request.param


@pytest.mark.parametrize("beta", [2.0, -3.0, 0.01, 50.0])
@pytest.mark.parametrize("G", [1, 2, 16, 33])
def test_rows_match_reference(backend, beta, G):
    rng = np.random.default_rng(G)
    R = rng.random((5000, G)) * rng.choice([1.0, 10.0, 100.0], size=(5000, 1))
    np.testing.assert_allclose(rs_advantage(R, beta=beta), reference(R, beta=beta), rtol=0, atol=1e-12)


@pytest.mark.parametrize("beta", [2.0, -1.5, 7.0])
def test_shuffled_integer_labels_match_reference(backend, kernel, beta):
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 20, 3000)                     # unequal groups, singletons included
    ids = rng.permutation(np.repeat(np.arange(3000) * 7 - 500, sizes))    # negative, gapped labels
    r = rng.random(ids.size)
    np.testing.assert_allclose(rs_advantage(r, ids, beta=beta), reference(r, ids, beta), rtol=0, atol=1e-12)


def test_groups_far_below_the_global_maximum_are_redone_exactly(backend, kernel):
    # one group's rewards 400 below another's: with beta = 2 the global shift would underflow it
    r = np.array([0.0, 1.0, 0.5, -400.0, -399.0, -399.5, -398.0])
    ids = np.array([0, 0, 0, 1, 1, 1, 1])
    a = rs_advantage(r, ids, beta=2.0)
    np.testing.assert_allclose(a, reference(r, ids, 2.0), rtol=0, atol=1e-12)
    assert abs(a[3:].sum()) < 1e-12 and a[6] > 0


def test_torch_tensor_and_labels(backend, kernel):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    ids = rng.permutation(np.repeat(np.arange(200), 8))
    r = rng.random(ids.size)
    out = rs_advantage(torch.tensor(r, dtype=torch.float32), torch.tensor(ids), beta=2.0)
    assert out.dtype == torch.float32
    np.testing.assert_allclose(out.numpy(), reference(r.astype(np.float32), ids, 2.0), atol=1e-6)


def test_declined_inputs_take_the_reference_path(kernel):
    r = np.random.default_rng(3).random(12)
    for ids in (np.array(list("aabbccddeeff")), np.repeat([0, 10**12], 6), np.repeat([0.5, 1.5], 6)):
        assert _rs_fast.flat(r, ids, 2.0) is None
        np.testing.assert_allclose(rs_advantage(r, ids), reference(r, ids), atol=1e-12)
    assert _rs_fast.rows(r.reshape(3, 4), 1e-4) is None        # small beta: the expm1 form


@pytest.mark.parametrize("kernel_name", KERNELS)
@given(st.integers(1, 30), st.integers(1, 12), st.floats(-20, 20).filter(lambda b: abs(b) > 1e-3),
       st.integers(0, 2**31 - 1))
def test_fast_paths_equal_reference_everywhere(kernel_name, n_groups, G, beta, seed):
    old = _rs_fast.USE_NUMBA
    _rs_fast.USE_NUMBA = _use(kernel_name)
    try:
        _fast_paths_equal_reference(n_groups, G, beta, seed)
    finally:
        _rs_fast.USE_NUMBA = old


def _fast_paths_equal_reference(n_groups, G, beta, seed):
    rng = np.random.default_rng(seed)
    R = rng.normal(0, rng.choice([0.1, 1.0, 10.0]), (n_groups, G))
    np.testing.assert_allclose(rs_advantage(R, beta=beta), reference(R, beta=beta), rtol=0, atol=1e-12)
    ids = rng.permutation(np.repeat(np.arange(n_groups), G))
    r = R.ravel()
    np.testing.assert_allclose(rs_advantage(r, ids, beta=beta), reference(r, ids, beta), rtol=0, atol=1e-12)


def test_module_does_not_import_torch():
    # the fast paths use torch only when the caller already imported it
    assert "sys" in dir(_rs_fast) and _rs_fast._torch() is sys.modules.get("torch")


@pytest.mark.parametrize("beta", [1e-3, -1e-3, 0.5, -40.0, 300.0])
def test_ties_and_extreme_beta_match_reference(backend, kernel, beta):
    # binary and 3-level rewards (many ties, all-equal groups), with beta at the fast paths' small-beta edge
    # and large enough that beta * spread exceeds 30 (the per-row shift) or not (one global shift)
    rng = np.random.default_rng(4)
    for R in (rng.integers(0, 2, (4000, 8)).astype(float), rng.integers(0, 3, (4000, 16)) * 0.5,
              rng.random((4000, 16)) * 0.05):
        np.testing.assert_allclose(rs_advantage(R, beta=beta), reference(R, beta=beta), rtol=0, atol=1e-12)
        ids = rng.permutation(np.repeat(np.arange(R.shape[0]), R.shape[1]))
        r = R.ravel()
        np.testing.assert_allclose(rs_advantage(r, ids, beta=beta), reference(r, ids, beta), rtol=0, atol=1e-12)


def test_global_and_per_row_shift_agree(backend):
    # the 2-D path shifts by max(beta R) when beta * spread <= 30, else by each row's maximum
    rng = np.random.default_rng(5)
    R = rng.random((300, 12))
    lims = (float(R.min()), float(R.max()))
    a = _rs_fast.rows(R, 2.0, lims)                          # spread 1: one shift
    b = _rs_fast.rows(R, 2.0, (lims[0] - 100.0, lims[1]))     # claimed spread 101: per-row shift
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-13)
    np.testing.assert_allclose(a, reference(R), rtol=0, atol=1e-12)


def test_non_finite_rewards_still_refused():
    from iclr26sci.core import InputError

    for bad in (np.nan, np.inf, -np.inf):
        R = np.zeros((4, 3))
        R[2, 1] = bad
        with pytest.raises(InputError, match="non-finite"):
            rs_advantage(R)


# ------------------------------------------------------------------ the optional numba kernel (1-D path)
def test_numba_kernel_equals_numpy_kernel_and_2d_path(monkeypatch):
    pytest.importorskip("numba")
    rng = np.random.default_rng(6)
    R = rng.random((3000, 16))
    order = rng.permutation(R.size)
    ids = np.repeat(np.arange(3000), 16)[order]                  # shuffled labels of the same groups
    r = R.ravel()[order]
    for beta in (1e-3, -1e-3, 0.3, 2.0, -7.0, 40.0, -300.0):     # beta * spread below and above 30
        monkeypatch.setattr(_rs_fast, "USE_NUMBA", True)
        a = rs_advantage(r, ids, beta=beta)
        monkeypatch.setattr(_rs_fast, "USE_NUMBA", False)
        b = rs_advantage(r, ids, beta=beta)
        c = rs_advantage(R, beta=beta).ravel()[order]
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a, c, rtol=0, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.uint8, ">i8"])
@pytest.mark.parametrize("beta", [2.0, -2.0, 60.0])
def test_numba_kernel_label_dtypes_offsets_and_singletons(monkeypatch, dtype, beta):
    pytest.importorskip("numba")
    monkeypatch.setattr(_rs_fast, "USE_NUMBA", True)
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 6, 40)                               # singletons included
    labels = np.arange(40) * 3 + (0 if np.dtype(dtype).kind == "u" else -20)   # gapped (and negative) labels
    ids = rng.permutation(np.repeat(labels, sizes)).astype(dtype)
    r = rng.normal(0, 2.0, ids.size)
    a = rs_advantage(r, ids, beta=beta)
    np.testing.assert_allclose(a, reference(r, ids.astype(np.int64), beta), rtol=0, atol=1e-12)
    single = np.isin(ids.astype(np.int64), labels[sizes == 1])
    assert single.any() and np.all(a[single] == 0.0)


def test_numba_switch(monkeypatch):
    r = np.random.default_rng(8).random(64)
    ids = np.repeat(np.arange(8), 8)
    monkeypatch.setattr(_rs_fast, "USE_NUMBA", "auto")
    assert _rs_fast._numba_kernel(_rs_fast.NUMBA_MIN - 1) is None           # small inputs: numpy, no import
    monkeypatch.setattr(_rs_fast, "USE_NUMBA", False)
    assert _rs_fast._numba_kernel(10 ** 9) is None
    monkeypatch.setattr(_rs_fast, "_nb_module", False)                      # as if numba did not import
    monkeypatch.setattr(_rs_fast, "USE_NUMBA", "auto")
    assert _rs_fast._numba_kernel(10 ** 9) is None
    np.testing.assert_allclose(rs_advantage(r, ids), reference(r, ids), rtol=0, atol=1e-12)
    monkeypatch.setattr(_rs_fast, "USE_NUMBA", True)
    with pytest.raises(ImportError, match="numba"):
        rs_advantage(r, ids)


def test_numba_cache_stays_out_of_the_package(monkeypatch):
    pytest.importorskip("numba")
    import pathlib

    from iclr26sci.rl import _rs_numba

    _rs_numba.warm_up()
    pkg = pathlib.Path(_rs_numba.__file__).parent
    assert not list(pkg.rglob("*.nbi")) and not list(pkg.rglob("*.nbc"))
