r"""Optional numba kernel of the 1-D path of :func:`iclr26sci.rl.rs_advantage` (integer group labels).

Imported only by :func:`iclr26sci.rl._rs_fast.flat`, and only when numba is installed (it is not a dependency
of the core package; the ``bench`` extra declares it). The numpy path makes three random-access passes over
the labels (``bincount`` of the counts, ``bincount`` of the sums, gather of the group means); here there are
two, with the random accesses software-prefetched 256 entries ahead:

* global shift ``c = max(beta r)`` (when ``|beta| (max r - min r) <= 30``, so every group's mean is at least
  ``e^-30`` and nothing underflows): ``e_i = exp(beta r_i - c)`` by torch's or numpy's vectorised kernels
  (sequential; a scalar libm ``exp`` inside the loop cost 0.05 s more per 1.6e7 entries), then one pass
  accumulates each group's sum and count side by side (``acc[2g], acc[2g + 1]``: one cache line per entry),
  a sweep over the groups forms the divisor ``beta * sum / count``, and one pass writes
  ``e_i / divisor - 1/beta``.
* otherwise each group is shifted by its own maximum, as the reference kernel does: pass 1 finds the group
  maxima and counts, pass 2 writes ``exp(beta r_i - max_g)`` (libm) and sums it, pass 3 writes the output.

A singleton group gets the divisor ``inf`` and advantage exactly 0. The floating-point operations are those of
the numpy path (multiply by ``beta``, subtract the shift, exp, divide by ``beta * (sum / count)``, add
``-1/beta``), summed in the same order, so the results agree to rounding. The arrays are allocated by numpy
(which asks Linux for transparent huge pages on large arrays: with numba's 4 KiB-page allocations the random
accesses ran about 2x slower from TLB misses).

Compiled in nopython mode, single-threaded (no ``parallel``). The machine code is cached only in numba's
user-wide cache directory (``$NUMBA_CACHE_DIR`` when set, else the platform's user cache dir, e.g.
``~/.cache/numba``), never next to the package's sources; when no such directory is writable it is compiled in
memory on first use. First compilation of all kernels for int64 and int32 labels (:func:`warm_up`): about 2-4 s;
loading them from the cache: about 0.3 s (plus 0.2 s to import numba).
"""
from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["rs_flat", "warm_up"]


def _user_cache(dispatcher):
    """Give ``dispatcher`` an on-disk cache restricted to numba's user-provided / user-wide locators."""
    try:
        from numba.core import caching

        locs = [getattr(caching, n) for n in ("UserProvidedCacheLocator", "_UserProvidedCacheLocator",
                                             "UserWideCacheLocator", "_UserWideCacheLocator")
                if hasattr(caching, n)]
        if not locs:
            return dispatcher

        class _Impl(caching.CompileResultCacheImpl):
            _locator_classes = locs

        class _Cache(caching.FunctionCache):
            _impl_class = _Impl

        dispatcher._cache = _Cache(dispatcher.py_func)
    except Exception:          # no writable user cache dir, or other numba internals: compile in memory
        pass
    return dispatcher


def _jit(f):
    return _user_cache(numba.njit(nogil=True, cache=False, error_model="numpy")(f))


@intrinsic
def _prefetch(typingctx, arr, idx, write):
    """Hint the CPU to fetch ``arr[idx]`` (1-D, C-contiguous; no bounds check) into the cache; ``write`` is a
    literal 0 (to read) or 1 (to write)."""
    if not isinstance(write, types.IntegerLiteral):
        return None
    rw = write.literal_value
    sig = types.void(arr, idx, write)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [ptr, i32(rw), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


_AHEAD = 256            # prefetch distance of the random accesses, in entries


@_jit
def _sums(e, ids, lo, acc):
    """acc[2g] += e_i, acc[2g + 1] += 1 for the group g = ids_i - lo of every entry (one pass)."""
    n = e.shape[0]
    for i in range(n):
        j = i + _AHEAD
        if j < n:
            _prefetch(acc, 2 * (ids[j] - lo), 1)
        g = 2 * (ids[i] - lo)
        acc[g] += e[i]
        acc[g + 1] += 1.0


@_jit
def _divisors(acc, beta, div):
    """beta * mean of each group from its (sum, count) pair; inf for singletons (whose advantage is 0)."""
    for g in range(div.shape[0]):
        c = acc[2 * g + 1]
        div[g] = np.inf if c == 1.0 else (acc[2 * g] / c) * beta if c > 0.0 else 1.0


@_jit
def _scale(out, ids, lo, div, inv):
    """out = out / div[group] - 1/beta; 0 where div is inf (singleton groups)."""
    n = out.shape[0]
    for i in range(n):
        j = i + _AHEAD
        if j < n:
            _prefetch(div, ids[j] - lo, 0)
        d = div[ids[i] - lo]
        out[i] = 0.0 if d == np.inf else out[i] / d + inv


@_jit
def _per_group(r, ids, lo, beta, out, acc, div):
    """Three passes: group maxima of beta r and counts; exp shifted by the group maximum and the sums; output."""
    n = r.shape[0]
    acc[0::2] = -np.inf                   # (max, count), then (sum, count), of group g at 2g, 2g + 1
    acc[1::2] = 0.0
    for i in range(n):
        j = i + _AHEAD
        if j < n:
            _prefetch(acc, 2 * (ids[j] - lo), 1)
        g = 2 * (ids[i] - lo)
        z = r[i] * beta
        if z > acc[g]:
            acc[g] = z
        acc[g + 1] += 1.0
    top = div                             # the group maxima, until _divisors overwrites them
    top[:] = acc[0::2]
    acc[0::2] = 0.0
    for i in range(n):
        j = i + _AHEAD
        if j < n:
            _prefetch(top, ids[j] - lo, 0)
            _prefetch(acc, 2 * (ids[j] - lo), 1)
        g = ids[i] - lo
        e = math.exp(r[i] * beta - top[g])    # libm: the exponent may be far below -700 here
        out[i] = e
        acc[2 * g] += e
    _divisors(acc, beta, div)
    _scale(out, ids, lo, div, -1.0 / beta)


def rs_flat(r: np.ndarray, ids: np.ndarray, lo: int, k: int, beta: float, lims: tuple[float, float]) -> np.ndarray:
    """RS advantage of float64 rewards ``r`` in the groups ``ids - lo`` (all in ``[0, k)``; caller checked).

    Parameters
    ----------
    r : ndarray of float64, shape (n,)
        Finite rewards.
    ids : ndarray of int32 or int64, shape (n,)
        Group labels; ``ids - lo`` must lie in ``[0, k)``.
    lo, k : int
        Label offset and number of label slots.
    beta : float
        ``|beta| >= 1e-3`` (smaller values take the reference path's expm1 form).
    lims : (float, float)
        ``(min r, max r)``.

    Returns
    -------
    ndarray of float64, shape (n,)
        The advantages (0 for singleton groups).
    """
    r = np.ascontiguousarray(r, dtype=np.float64)
    ids = np.ascontiguousarray(ids)
    lo_r, hi_r = lims
    beta = float(beta)
    # numpy allocates (huge pages for large arrays: fewer TLB misses in the random passes)
    out = np.empty(r.shape[0])
    acc = np.zeros(2 * k)
    div = np.empty(k)
    lo = np.int64(lo)
    if abs(beta) * (hi_r - lo_r) <= 30.0:
        shift = beta * hi_r if beta > 0 else beta * lo_r       # = max(beta r) exactly (rounding is monotone)
        from . import _rs_fast                                # the exps by a vectorised library kernel
        torch = _rs_fast._torch()                             # (libm's scalar exp in the loop: 2x slower),
        if torch is not None:                                 # torch's when the caller imported torch
            ot = torch.from_numpy(out)
            torch.add(torch.tensor(-shift, dtype=torch.float64), torch.from_numpy(r), alpha=beta, out=ot)
            torch.exp(ot, out=ot)
        else:
            np.multiply(r, beta, out=out)
            out -= shift
            np.exp(out, out=out)
        _sums(out, ids, lo, acc)
        _divisors(acc, beta, div)
        _scale(out, ids, lo, div, -1.0 / beta)
    else:
        _per_group(r, ids, lo, beta, out, acc, div)
    return out


def warm_up() -> float:
    """Compile (or load from the cache) the kernels for int64 and int32 labels; returns the seconds it took."""
    import time

    t = time.perf_counter()
    r = np.array([0.0, 1.0, 0.5])
    for dt in (np.int64, np.int32):
        ids = np.array([0, 0, 1], dtype=dt)
        rs_flat(r, ids, 0, 2, 2.0, (0.0, 1.0))
        rs_flat(r, ids, 0, 2, 100.0, (0.0, 1.0))
    return time.perf_counter() - t
