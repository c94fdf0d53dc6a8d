r"""Fast paths of :func:`iclr26sci.rl.rs_advantage` (float64, no temporaries larger than the input).

Both compute :math:`\hat A_i = \big(e^{\beta r_i - c_g} / (\tfrac1G\sum_{j\in g} e^{\beta r_j - c_g}) - 1\big)/\beta`
with the same floating-point operations as the reference kernel (``rs_grpo._rs_kernel``): multiply by
``beta``, subtract the shift ``c_g``, exponentiate, divide by the group mean, subtract 1, divide by ``beta``.

* 2-D ``(n_groups, G)``: blocks of about 2^16 entries are processed while they sit in cache, so the matrix
  is read once and the output written once; the only temporaries are one block's row sums (and row maxima
  when needed). When ``|beta| * (max R - min R) <= 30`` one global shift ``max(beta R)`` replaces the per-row
  maxima (every row mean stays above ``e^-30``); the final ``o / (s beta / G) - 1/beta`` is two passes.
  The elementwise kernels are torch's (vectorised exp, row reductions across rows) when torch is already
  imported, numpy's otherwise.
* 1-D with integer group labels in a compact range (any order, e.g. shuffled): no sort. Counts and group
  sums are two ``bincount`` passes and the group mean is gathered back per block. The shift is the global
  maximum of ``beta * r``; a group whose mean falls below ``e^-30`` (its terms may have lost digits to
  underflow) is redone with its exact maximum (``np.maximum.at`` on its entries only). Otherwise the shift
  changes the result by rounding only (the exponent's absolute error is below ulp(64) = 1.4e-14).

  With numba installed (optional; the ``bench`` extra), inputs of at least ``NUMBA_MIN`` entries go to the
  fused kernel of :mod:`iclr26sci.rl._rs_numba` instead (two passes over the data with the global shift,
  three with per-group maxima); ``USE_NUMBA`` forces either kernel.

Anything else (``|beta| < 1e-3``, other labels, invalid input) returns ``None`` and the reference path runs.
"""
from __future__ import annotations

import sys

import numpy as np

_BLOCK = 1 << 16          # entries per block (512 KiB of float64: stays in L2)
_LOW = float(np.exp(-30.0))


def _exp(a: np.ndarray) -> None:
    """In-place exp (torch's vectorised kernel when torch is loaded: 2.2 against 5.3 ns per float64)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        t = torch.from_numpy(a)
        torch.exp(t, out=t)
    else:
        np.exp(a, out=a)


def _torch():
    """torch if the caller already imported it (importing it here would cost more than it saves)."""
    return sys.modules.get("torch")


def bounds(a: np.ndarray) -> tuple[float, float]:
    """(min, max) of a float64 array in one read-only pass (NaN propagates, so both finite means all finite)."""
    torch = _torch()
    if torch is not None and a.size and a.flags.writeable:
        lo, hi = torch.aminmax(torch.from_numpy(np.ascontiguousarray(a)))
        return float(lo), float(hi)
    return float(a.min()), float(a.max())


def rows(R: np.ndarray, beta: float, lims: tuple[float, float] | None = None) -> np.ndarray | None:
    """RS advantage of every row of a C-contiguous float64 matrix (rows are groups).

    ``lims``: the (min, max) of ``R`` when the caller has them. When ``|beta| * (max - min) <= 30`` one shift
    ``c = max(beta * R)`` serves every row (each row's mean is then at least ``e^-30``, far from underflow, and
    the exponent ``beta r - c`` lies in ``[-30, 0]`` where its rounding error is below ulp(30) = 3.6e-15), so
    the per-row maxima are not needed; otherwise each row is shifted by its own maximum as in the reference.
    Per block of rows: ``o = beta r - c`` (one fused pass), ``exp``, the row sums ``s``, and
    ``o / (s beta / G) - 1/beta`` (two passes).
    """
    if abs(beta) < 1e-3 or R.ndim != 2:
        return None
    n, G = R.shape
    out = np.empty_like(R)
    if G == 1:                                    # singleton groups: no comparison, advantage 0
        out.fill(0.0)
        return out
    R = np.ascontiguousarray(R)
    if lims is None:
        lims = bounds(R)
    lo_r, hi_r = lims
    shift = None
    if abs(beta) * (hi_r - lo_r) <= 30.0:
        shift = beta * hi_r if beta > 0 else beta * lo_r      # = max(beta * R) exactly (rounding is monotone)
    step = max(1, _BLOCK // G)
    torch = _torch()
    inv = -1.0 / beta
    if torch is not None:
        rt, ot = torch.from_numpy(R), torch.from_numpy(out)
        for lo in range(0, n, step):
            o, r = ot[lo:lo + step], rt[lo:lo + step]
            if shift is None:
                m = torch.amax(r, 1, keepdim=True) if beta > 0 else torch.amin(r, 1, keepdim=True)
                m.mul_(-beta)
                torch.add(m, r, alpha=beta, out=o)
            else:
                torch.mul(r, beta, out=o)
                o.sub_(shift)
            torch.exp(o, out=o)
            s = o.sum(1, keepdim=True)
            s.mul_(beta / G)
            o.div_(s)
            o.add_(inv)
        return out
    for lo in range(0, n, step):
        o = out[lo:lo + step]
        np.multiply(R[lo:lo + step], beta, out=o)
        o -= o.max(axis=1, keepdims=True) if shift is None else shift
        np.exp(o, out=o)
        s = o.sum(axis=1, keepdims=True)
        s *= beta / G
        o /= s
        o += inv
    return out


#: Which kernel the 1-D path uses: ``"auto"`` (numba's when numba imports and the input has at least
#: ``NUMBA_MIN`` entries, numpy's otherwise), ``True`` (numba's at every size; ImportError without numba) or
#: ``False`` (numpy's). Tests set it to force either path.
USE_NUMBA: bool | str = "auto"
NUMBA_MIN = 1 << 15
_nb_module = None            # the imported _rs_numba module; False once its import failed


def numba_available() -> bool:
    """Whether the optional numba kernel of the 1-D path imports (imports numba on the first call)."""
    global _nb_module
    if _nb_module is None:
        try:
            from . import _rs_numba
            _nb_module = _rs_numba
        except Exception:    # numba missing, or a numba built against another numpy
            _nb_module = False
    return _nb_module is not False


def _numba_kernel(n: int):
    """The _rs_numba module when the 1-D path of ``n`` entries should use it (see ``USE_NUMBA``), else None."""
    if USE_NUMBA is False or (USE_NUMBA == "auto" and n < NUMBA_MIN):
        return None
    if numba_available():
        return _nb_module
    if USE_NUMBA is True:
        raise ImportError("_rs_fast.USE_NUMBA is True but numba does not import")
    return None


def flat(r: np.ndarray, group_ids, beta: float, lims: tuple[float, float] | None = None) -> np.ndarray | None:
    """RS advantage of 1-D rewards with integer group labels in a compact range; None to decline."""
    if abs(beta) < 1e-3 or r.ndim != 1:
        return None
    if group_ids is None:
        out = rows(r.reshape(1, -1), beta, lims)
        return None if out is None else out.reshape(-1)
    if type(group_ids).__module__.startswith("torch") and hasattr(group_ids, "detach"):
        group_ids = group_ids.detach().cpu().numpy()
    ids = np.asarray(group_ids)
    n = r.shape[0]
    if ids.ndim != 1 or ids.shape[0] != n or ids.dtype.kind not in "iu" or n == 0:
        return None
    torch = _torch()
    if torch is not None and ids.flags.writeable and ids.dtype in (np.int64, np.int32):
        lo, hi = (int(v) for v in torch.aminmax(torch.from_numpy(np.ascontiguousarray(ids))))
    else:
        lo, hi = int(ids.min()), int(ids.max())
    if hi - lo > 4 * n + 1024:                   # sparse labels: the reference path sorts them
        return None
    k = hi - lo + 1
    nb = _numba_kernel(n)
    if nb is not None:
        if lims is None:
            lims = bounds(r)
        if ids.dtype not in (np.dtype(np.int64), np.dtype(np.int32)):       # (native byte order only)
            ids, lo = ids.astype(np.intp) - lo, 0            # as the numpy path below relabels them
        return nb.rs_flat(r, ids, lo, k, beta, lims)
    key = ids.astype(np.intp, copy=False)
    if lo != 0:
        key = key - lo
    counts = np.bincount(key, minlength=k)
    lo_r, hi_r = bounds(r) if lims is None else lims
    shift = beta * hi_r if beta > 0 else beta * lo_r   # global shift max(beta r): nothing overflows
    if torch is not None:                                # one fused pass: out = beta r - shift, then exp
        out = np.empty_like(r)
        ot = torch.from_numpy(out)
        torch.add(torch.tensor(-shift, dtype=torch.float64), torch.from_numpy(np.ascontiguousarray(r)),
                  alpha=beta, out=ot)
        torch.exp(ot, out=ot)
    else:
        out = np.multiply(r, beta)
        out -= shift
        np.exp(out, out=out)
    mean = np.bincount(key, weights=out, minlength=k)
    mean /= np.maximum(counts, 1)
    # a group far below the global maximum (mean < e^-30) may have lost digits to underflow:
    # those groups are redone with their exact maximum as the shift
    low = (mean < _LOW) & (counts > 0)
    if low.any():
        sel = np.flatnonzero(low[key])
        ks = key[sel]
        z = np.multiply(r[sel], beta)
        top = np.full(k, -np.inf)
        np.maximum.at(top, ks, z)
        z -= top[ks]
        np.exp(z, out=z)
        sums = np.bincount(ks, weights=z, minlength=k)
        out[sel] = z
        mean[low] = sums[low] / counts[low]
    mean *= beta                                  # A = e / (beta mean) - 1/beta
    inv = -1.0 / beta
    buf = np.empty(min(n, _BLOCK))
    if torch is not None:                         # one fused pass per block: o = o / b + inv
        ot, bt = torch.from_numpy(out), torch.from_numpy(buf)
        it = torch.tensor(inv, dtype=torch.float64)
    for a in range(0, n, _BLOCK):
        o = out[a:a + _BLOCK]
        b = buf[:o.size]
        np.take(mean, key[a:a + _BLOCK], out=b, mode="wrap")   # keys are in [0, k): 'wrap' is a no-op that
                                                              # skips the bounds-checked, buffered 'raise' mode
        if torch is not None:
            torch.addcdiv(it, ot[a:a + _BLOCK], bt[:o.size], out=ot[a:a + _BLOCK])
        else:
            o /= b
            o += inv
    if np.any(counts == 1):                       # singleton groups get 0
        out[counts[key] == 1] = 0.0
    return out
