r"""Interior point on the equilibrium LCP of a zero-sum polymatrix game, dense or sparse.

The Newton system of the LCP, reduced to the null space of the simplex constraints, is

.. math::  Z^\top (D - \mathbf M) Z\, y = Z^\top r,\qquad D = X^{-1}S,

of order :math:`q=\sum_i (A_i-1)`. :math:`Z^\top\mathbf MZ` has one :math:`(A_u-1)\times(A_v-1)`
block per edge and :math:`Z^\top DZ` is block diagonal, so the matrix has the sparsity of the
player graph. Two back ends factorise it:

* ``"dense"``: one LAPACK LU of order :math:`q` per iteration (cost :math:`\tfrac23 q^3`, memory
  :math:`16 q^2` bytes); best for dense graphs.
* ``"sparse"``: SuperLU on the graph-structured matrix (cost set by the fill of the elimination,
  small for graphs with small separators such as rings and lattices).

:func:`choose_backend` picks the one with the smaller predicted CPU time among those whose
memory fits (see ``benchmarks/README.md`` for the measured constants), or ``None`` (use the LP).
"""
from __future__ import annotations

import os
import warnings

import numpy as np

# measured on the 2-core development machine, one thread (benchmarks/bench_games.py --crossover):
_DENSE_FLOPS = 3.2e10        # LAPACK dgetrf, flop/s (order 2000-4000: 1.37 s CPU at q = 4000)
_SPARSE_FLOPS = 1.0e10       # SuperLU on the graph-structured Newton matrix, flop/s of the envelope model
_SPARSE_ROW_S = 2.7e-6       # and seconds per row and iteration (assembly, solves, products: ring, N = 1e5)
_ITERS = 20                  # Mehrotra iterations (18-22 measured for A = 3, N = 500-5000)


# ----------------------------------------------------------------------------- memory and cost model
def available_bytes() -> float:
    """Memory this process may use now: the smaller of half the physical memory and 80% of
    ``MemAvailable`` (Linux; half the physical memory elsewhere)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        total = 16 * 2**30
    lim = 0.5 * total
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    lim = min(lim, 0.8 * 1024 * float(line.split()[1]))
                    break
    except OSError:  # pragma: no cover - not Linux
        pass
    return lim


def _envelope(game) -> tuple[float, float]:
    """(nnz, flops) of an LU of the reduced Newton matrix in reverse Cuthill-McKee order of the
    player graph: the envelope bounds the fill, row ``i`` of width ``w_i`` (in actions) costs
    about ``2 w_i^2`` flops."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    n = game._n
    if game._src.size == 0:
        return 0.0, 0.0
    adj = sp.csr_matrix((np.ones(game._src.size, dtype=np.int8), (game._src, game._dst)), shape=(n, n))
    perm = reverse_cuthill_mckee(adj, symmetric_mode=True)
    pos = np.empty(n, dtype=np.int64)
    pos[perm] = np.arange(n)
    lo = np.arange(n)                                                 # first column of each row's envelope
    np.minimum.at(lo, pos[game._src], pos[game._dst])
    width = (np.arange(n) - lo + 1).astype(float) * max(1, game._amax - 1)   # in actions
    rows = float(max(1, game._amax - 1))
    return 2.0 * rows * float(width.sum()), 2.0 * rows * float((width ** 2).sum())


def predicted_costs(game) -> dict:
    """Predicted CPU seconds and bytes of the two back ends (and whether each fits in memory)."""
    k = int(game._acts.sum())
    q = k - game._n
    nnz_m = float(game._src.size) * game._amax ** 2
    cached = game._big is not None
    base = 0.0 if cached else 12.0 * nnz_m                           # the game's CSR payoff matrix
    dense_bytes = base + 16.0 * q * q + 8.0 * min(nnz_m, 2e7) * 2     # Z'MZ and its LU, block chunks
    env_nnz, env_flops = _envelope(game)
    sparse_bytes = base + 12.0 * (env_nnz + 8.0 * nnz_m)
    avail = available_bytes()
    return {"q": q, "dense_s": _ITERS * (2.0 / 3.0) * q ** 3 / _DENSE_FLOPS, "dense_bytes": dense_bytes,
            "dense_fits": dense_bytes < avail,
            "sparse_s": _ITERS * (env_flops / _SPARSE_FLOPS + _SPARSE_ROW_S * q), "sparse_bytes": sparse_bytes,
            "sparse_fits": sparse_bytes < avail, "available_bytes": avail}


def choose_backend(game) -> str | None:
    """``"dense"``, ``"sparse"`` or ``None`` (neither fits in memory: use the LP)."""
    c = predicted_costs(game)
    opts = [(c["dense_s"], "dense")] if c["dense_fits"] else []
    if c["sparse_fits"]:
        opts.append((c["sparse_s"], "sparse"))
    return min(opts)[1] if opts else None


# ----------------------------------------------------------------------------- Newton back ends
class _DenseNewton:
    """Z'(D - M)Z as one dense LU per iteration."""

    def __init__(self, ztmz: np.ndarray, nl, lst, own_nl, n):
        self.ztmz = ztmz
        q = nl.size
        cnt_nl = np.bincount(own_nl, minlength=n)
        start_nl = np.cumsum(cnt_nl) - cnt_nl
        sizes = cnt_nl[own_nl]
        self.pair_r = np.repeat(np.arange(q), sizes)          # (j, j') pairs of columns of the same player
        offs = np.arange(self.pair_r.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        self.pair_c = np.repeat(start_nl[own_nl], sizes) + offs
        self.nl, self.lst, self.q = nl, lst, q
        self.lu = None

    def factor(self, d):
        import scipy.linalg as sl

        diag = np.arange(self.q)
        a = np.negative(self.ztmz)
        a[diag, diag] += d[self.nl]
        a[self.pair_r, self.pair_c] += d[self.lst[self.pair_r]]
        self.lu = None
        self.lu = sl.lu_factor(a, overwrite_a=True, check_finite=False)

    def solve(self, rhs):
        import scipy.linalg as sl

        return sl.lu_solve(self.lu, rhs, check_finite=False)


class _SparseNewton:
    """Z'(D - M)Z as a SuperLU factorisation per iteration (the pattern of the player graph)."""

    def __init__(self, ztmz, nl, lst, own_nl, n):
        import scipy.sparse as sp

        q = nl.size
        cnt_nl = np.bincount(own_nl, minlength=n)
        start_nl = np.cumsum(cnt_nl) - cnt_nl
        sizes = cnt_nl[own_nl]
        pair_r = np.repeat(np.arange(q), sizes)
        offs = np.arange(pair_r.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        pair_c = np.repeat(start_nl[own_nl], sizes) + offs
        # one fixed pattern: -Z'MZ plus the block-diagonal Z'DZ; the values of Z'DZ are written
        # each iteration through the positions of its entries in the CSC data array
        zdz_r = np.concatenate([np.arange(q), pair_r])
        zdz_c = np.concatenate([np.arange(q), pair_c])
        ones = sp.csc_matrix((np.ones(zdz_r.size), (zdz_r, zdz_c)), shape=(q, q))
        base = (-ztmz).tocsc()
        pattern = (abs(base) + ones).tocsc()                   # union of the patterns
        pattern.sort_indices()
        self.base = self._on_pattern(base, pattern)
        self.pos_diag = self._positions(pattern, np.arange(q), np.arange(q))
        self.pos_pair = self._positions(pattern, pair_r, pair_c)
        self.pattern = pattern
        self.nl, self.lst, self.pair_r = nl, lst, pair_r
        self.lu = None
        self.fill = 0

    @staticmethod
    def _positions(mat, r, c):
        """Index into ``mat.data`` of the entries (r, c) (all present; CSC with sorted indices)."""
        # (column, row) keys are increasing along a CSC array with sorted indices
        colof = np.repeat(np.arange(mat.shape[1], dtype=np.int64), np.diff(mat.indptr))
        allkey = colof * mat.shape[0] + mat.indices
        return np.searchsorted(allkey, c.astype(np.int64) * mat.shape[0] + r)

    @staticmethod
    def _on_pattern(mat, pattern):
        out = pattern.copy()
        out.data[:] = 0.0
        mat = mat.tocsc()
        mat.sort_indices()
        colof = np.repeat(np.arange(mat.shape[1], dtype=np.int64), np.diff(mat.indptr))
        key = colof * mat.shape[0] + mat.indices
        pcol = np.repeat(np.arange(pattern.shape[1], dtype=np.int64), np.diff(pattern.indptr))
        pkey = pcol * pattern.shape[0] + pattern.indices
        out.data[np.searchsorted(pkey, key)] = mat.data
        return out.data

    def factor(self, d):
        from scipy.sparse.linalg import splu

        a = self.pattern                                       # SuperLU copies its input
        a.data[:] = self.base
        a.data[self.pos_diag] += d[self.nl]
        a.data[self.pos_pair] += d[self.lst[self.pair_r]]      # the positions are distinct
        self.lu = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # COLAMD: on the ring graph (N = 1e5) 0.42 s and 3.6e6 fill per factorisation, against
            # 0.68-0.92 s and 1.2-1.7e7 for minimum degree on A'+A
            self.lu = splu(a, permc_spec="COLAMD")
        self.fill = int(self.lu.L.nnz + self.lu.U.nnz)

    def solve(self, rhs):
        return self.lu.solve(rhs)


# ----------------------------------------------------------------------------- exact solve on a support
def reduced_support_solve(m, owner: np.ndarray, n: int, supp: np.ndarray):
    """Exact equilibrium on a guessed support, in the null space of the simplex constraints.

    With ``l_u`` the last support action of player ``u`` and :math:`x = x_0 + Z_S y`
    (:math:`x_0` puts mass 1 on every ``l_u``, the columns of :math:`Z_S` are
    :math:`e_a - e_{l_u}`), "every support action earns the same payoff" reads
    :math:`Z_S^\\top M_{SS} Z_S\\, y = -Z_S^\\top M_{SS} x_0`, of order :math:`|S| - N` (the
    full system in ``(x_S, w)`` has order :math:`|S| + N`). ``m`` is the sparse payoff matrix on
    the valid actions. Returns the full-length x (valid actions), or None when the system is
    singular or gives negative mass; the caller certifies.
    """
    import scipy.linalg as sl
    import scipy.sparse as sp

    s_idx = np.flatnonzero(supp)
    ns = s_idx.size
    own = owner[s_idx]
    cnt = np.bincount(own, minlength=n)
    if ns == 0 or cnt.min() == 0:
        return None
    lastp = np.cumsum(cnt) - 1
    keep = np.ones(ns, dtype=bool)
    keep[lastp] = False
    nlp = np.flatnonzero(keep)
    r = nlp.size
    x0 = np.zeros(ns)
    x0[lastp] = 1.0
    if r == 0:
        xs = x0
    else:
        sub = m[s_idx][:, s_idx].tocsr()
        cols = np.arange(r)
        zs = sp.csr_matrix((np.concatenate([np.ones(r), -np.ones(r)]),
                            (np.concatenate([nlp, lastp[own[nlp]]]), np.concatenate([cols, cols]))), shape=(ns, r))
        zt = zs.T.tocsr()
        red = (zt @ (sub @ zs)).tocsc()
        rhs = -(zt @ (sub @ x0))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if r <= 3000 or red.nnz > 0.05 * r * r:
                    y = sl.solve(red.toarray(), rhs, check_finite=False)
                else:
                    from scipy.sparse.linalg import splu

                    y = splu(red, permc_spec="MMD_AT_PLUS_A").solve(rhs)
        except (np.linalg.LinAlgError, ValueError, RuntimeError):
            return None
        xs = x0 + zs @ y
    if not np.all(np.isfinite(xs)) or xs.min() < -1e-12:
        return None
    x = np.zeros(owner.size)
    x[s_idx] = np.clip(xs, 0.0, None)
    return x


# ----------------------------------------------------------------------------- the interior point
def _ztmz_dense(game, valid, z, m):
    """Z'MZ as a dense array (from the edge blocks when every player has Amax actions)."""
    n, a = game._n, game._amax
    q = z.shape[1]
    if valid.size == n * a:
        out = np.zeros((n, a - 1, n, a - 1))
        bl = game._blocks
        step = 1_000_000
        for lo in range(0, game._src.size, step):
            b = bl[lo:lo + step]
            if game._pscale != 1.0:
                b = b / game._pscale
            red = b[:, :-1, :-1] - b[:, -1:, :-1] - b[:, :-1, -1:] + b[:, -1:, -1:]
            out[game._src[lo:lo + step], :, game._dst[lo:lo + step], :] = red
        return out.reshape(q, q)
    return (z.T @ (m @ z)).toarray()


def lcp_interior_point(game, tol: float, backend: str, max_iter: int = 100, refine: int = 2):
    r"""Mehrotra predictor-corrector on the equilibrium LCP; see :func:`iclr26sci.games._exact._ipm_route`.

    ``backend`` is ``"dense"`` or ``"sparse"``. After each iteration whose support guess
    (Tapia's indicator: :math:`x` shrank less than :math:`s`) is the same as in the previous one,
    it solves exactly on that support (order :math:`|S|-N`) and returns the solution as soon as
    it certifies (max gap < ``tol``); otherwise it returns the best certified iterate ``refine``
    iterations after the first one.

    Returns (padded profile or None, info).
    """
    import scipy.sparse as sp

    from ._exact import _certify, _player_of, _valid_index

    n, amax = game._n, game._amax
    valid = _valid_index(game)
    k = valid.size
    owner = _player_of(game, valid)
    m = game._matrix()
    if k != n * amax:
        m = m[valid][:, valid].tocsr()
    cnt = np.bincount(owner, minlength=n)
    x = 1.0 / cnt[owner]
    blk = np.abs(game._blocks).max() / game._pscale if game._blocks.size else 0.0
    scale = max(1e-300, float(blk) * float(np.sqrt(max(1.0, float(np.max(game._deg, initial=0))))))

    def mv(v):
        return (m @ v) / scale

    g = mv(x)
    best_g = np.full(n, -np.inf)
    np.maximum.at(best_g, owner, g)
    w = best_g + 1.0
    s = w[owner] - g
    last = np.cumsum(cnt) - 1                     # k-index of every player's last action
    keep = np.ones(k, dtype=bool)
    keep[last] = False
    nl = np.flatnonzero(keep)                     # the other actions: one column of Z each
    q = nl.size
    lst = last[owner[nl]]
    own_nl = owner[nl]
    info: dict = {"solver": f"{backend} interior point on the equilibrium LCP"}

    def padded(v):
        v = np.clip(v, 0.0, None)
        tot = np.bincount(owner, weights=v, minlength=n)
        out = np.zeros(n * amax)
        out[valid] = v / np.where(tot > 0, tot, 1.0)[owner]
        return out.reshape(n, amax)

    if q == 0:                                    # every player has a single action
        xp = padded(x)
        gap = _certify(game, xp)
        if gap < tol:
            info.update(ipm_iterations=0, ipm_gap=gap, status="certified", polished=False)
            return xp, info
        info["status"] = "iteration cap"
        return None, {**info, "ipm_iterations": 0}
    z = sp.csr_matrix((np.concatenate([np.ones(q), -np.ones(q)]),
                       (np.concatenate([nl, lst]), np.concatenate([np.arange(q), np.arange(q)]))), shape=(k, q))
    if backend == "dense":
        zt = _ztmz_dense(game, valid, z, m)
        zt /= scale
        newt = _DenseNewton(zt, nl, lst, own_nl, n)
        del zt
    else:
        newt = _SparseNewton((z.T @ (m @ z)).tocsc() / scale, nl, lst, own_nl, n)

    def maxstep(dx, ds):
        r = 1.0
        for v, dv in ((x, dx), (s, ds)):
            neg = dv < 0
            if neg.any():
                r = min(r, float(np.min(-v[neg] / dv[neg])))
        return r

    first, best, tried, prev_supp, stalls, n_solves = None, None, [], None, 0, 0
    for it in range(1, max_iter + 1):
        mu = float(x @ s) / k
        d = s / x
        try:
            newt.factor(d)
        except (np.linalg.LinAlgError, ValueError, RuntimeError, MemoryError):
            info["status"] = "singular Newton matrix"
            return None, {**info, "ipm_iterations": it}

        def newton(rc):
            r = rc / x
            y = newt.solve(r[nl] - r[lst])
            dx = np.zeros(k)
            dx[nl] = y
            dx[last] = -np.bincount(own_nl, weights=y, minlength=n)
            mdx = mv(dx)
            dw = np.bincount(owner, weights=r - d * dx + mdx, minlength=n) / cnt
            return dx, dw, dw[owner] - mdx

        dxa, _, dsa = newton(-x * s)                                  # affine (predictor) direction
        aa = maxstep(dxa, dsa)
        mu_aff = float((x + aa * dxa) @ (s + aa * dsa)) / k
        sigma = (mu_aff / mu) ** 3
        dx, dw, ds = newton(sigma * mu - x * s - dxa * dsa)           # Mehrotra corrector
        alpha = min(1.0, 0.995 * maxstep(dx, ds))
        x_prev, s_prev = x.copy(), s.copy()
        x += alpha * dx
        w += alpha * dw
        s += alpha * ds
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(s))):
            info["status"] = "non-finite iterate"
            return None, {**info, "ipm_iterations": it}
        stalls = stalls + 1 if alpha < 1e-6 else 0
        if stalls >= 5 and best is None:          # no progress: hand over to the LP
            info["status"] = "stalled"
            return None, {**info, "ipm_iterations": it}
        xp = padded(x)
        gap = _certify(game, xp)
        info.update(ipm_iterations=it, ipm_gap=gap, mu=float(x @ s) / k)
        if backend == "sparse":
            info["lu_fill"] = newt.fill
        if gap < tol:
            if first is None:
                first = it
            if best is None or gap <= best[1]:
                best = (xp, gap)
            info["status"] = "certified"
        # support guess: Tapia's indicator, scale-free and right long before x > s separates.
        # The exact solve (order |S| - N) is tried once the guess is the same in two successive
        # iterations; kept when it certifies and beats the iterate.
        supp = x / x_prev > s / s_prev
        stable = prev_supp is not None and np.array_equal(supp, prev_supp)
        prev_supp = supp
        if stable and np.bincount(owner[supp], minlength=n).min() > 0 and \
                not any(np.array_equal(supp, t) for t in tried):
            tried.append(supp)
            n_solves += 1
            cand = reduced_support_solve(m, owner, n, supp)
            if cand is not None:
                cp = padded(cand)
                gp = _certify(game, cp)
                info["polish_gap"] = gp
                if gp < tol and gp < gap:
                    info.update(polished=True, status="certified", support_solves=n_solves)
                    return cp, info
        if first is not None and it - first >= refine:
            info.update(polished=False, support_solves=n_solves)
            return best[0], info
    if best is not None:
        info.update(polished=False, support_solves=n_solves)
        return best[0], info
    info["status"] = "iteration cap"
    return None, {**info, "ipm_iterations": max_iter}
