r"""Exact equilibria of polymatrix games.

* Zero-sum polymatrix games: the linear program of Cai, Candogan, Daskalakis &
  Papadimitriou (2016),

  .. math::

      \min_{x,w}\ \sum_u w_u \quad\text{s.t.}\quad w_u\mathbf 1\ \ge\ \sum_{v\in N(u)} M_{uv}x_v,
      \quad x_u\in\Delta(A_u),

  whose optimum is 0 and whose optimal :math:`x` are exactly the Nash equilibria.
  Games with more than 5e4 payoff nonzeros: a Mehrotra interior point on the equilibrium
  LCP (monotone for every zero-sum game), reduced to the null space of the simplex
  constraints, with dense or sparse (player-graph) Newton steps chosen by a measured cost
  model, and an exact solve on the support it identifies (``method="ipm"``, the default
  there). Small games: HiGHS's dual simplex; the LP's interior point (without crossover;
  with it if the certificate fails) is the fallback. An alternative exact route (``method="support"``): optimistic
  gradient play on the monotone equilibrium variational inequality, support
  identification, and an exact linear solve on the identified supports;
  every answer carries the certificate ``max gap < tol``, with the LP as the
  fallback.
* General-sum polymatrix games: Lemke's complementary pivoting on the LCP of
  Miller & Zucker (1991) (payoffs shifted to be strictly negative, which
  makes the LCP matrix copositive-plus, so Lemke's method ends at a solution).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from iclr26sci.core import InputError, check_in_range, check_option, check_positive_int

from ._game import CITATION, PolymatrixGame
from ._report import fmt, jsonable, table

__all__ = ["EquilibriumResult", "solve_equilibrium", "zero_sum_lp", "lemke_equilibrium"]


@dataclass(frozen=True, repr=False)
class EquilibriumResult:
    """An exact equilibrium with its certificate (returned by :func:`solve_equilibrium`).

    Attributes
    ----------
    strategies : ndarray (N, A) or list
        The equilibrium profile.
    nash_gap : ndarray (N,)
        Per-player Nash gaps at ``strategies`` (in the game's normalisation).
    max_gap : float
        ``nash_gap.max()``: the certificate (below ``tol`` when ``certified``).
    certified : bool
        Whether ``max_gap < tol``: the profile is an exact equilibrium up to that tolerance.
    method : str
        ``"lp"``, ``"ipm"`` (interior point on the LCP), ``"support"`` (extragradient +
        exact support solve) or ``"lemke"``.
    objective : float
        LP optimum (0 for zero-sum games), ``nan`` for Lemke.
    seconds : float
        Wall-clock time of the solve.
    info : dict
        Solver details (iterations, pivots, fallbacks).

    Examples
    --------
    >>> from iclr26sci.games import PolymatrixGame, solve_equilibrium
    >>> res = solve_equilibrium(PolymatrixGame.random(5, 2, payoffs="zero_sum", rng=0))
    >>> res.certified, res.method
    (True, 'lp')
    >>> sorted(res.to_dict())[:3]
    ['certified', 'citation', 'info']
    """

    strategies: object
    nash_gap: np.ndarray
    max_gap: float
    certified: bool
    method: str
    objective: float
    seconds: float
    info: dict = field(default_factory=dict)
    citation: str = CITATION

    def __array__(self, dtype=None, copy=None):  # lets np.asarray(result) give the profile
        return np.asarray(self.strategies, dtype=dtype)

    def __repr__(self) -> str:
        return (f"EquilibriumResult(method={self.method!r}, n_players={len(self.nash_gap)}, "
                f"max_gap={fmt(self.max_gap)}, certified={self.certified}, seconds={fmt(self.seconds)})")

    def to_dict(self) -> dict:
        """Every field as plain Python values (the profile as nested lists)."""
        return jsonable({"strategies": self.strategies, "nash_gap": self.nash_gap, "max_gap": self.max_gap,
                         "certified": self.certified, "method": self.method, "objective": self.objective,
                         "seconds": self.seconds, "info": self.info, "citation": self.citation})

    def summary(self) -> str:
        """Method, certificate and cost, as a short table."""
        rows = [("method", self.method), ("players", len(self.nash_gap)), ("max Nash gap", self.max_gap),
                ("certified", self.certified), ("objective", self.objective), ("seconds", self.seconds)]
        rows += [(k, v) for k, v in self.info.items() if isinstance(v, (int, float, str, bool, np.number))]
        return table("Exact Nash equilibrium", rows)


def _valid_index(game: PolymatrixGame) -> np.ndarray:
    return np.flatnonzero(game._mask.ravel())


def _player_of(game: PolymatrixGame, valid: np.ndarray) -> np.ndarray:
    return valid // game._amax


# ----------------------------------------------------------------------------- the CCDP LP
def zero_sum_lp(game: PolymatrixGame, *, method: str = "highs") -> tuple[np.ndarray, float, dict]:
    """Solve the CCDP LP with HiGHS (through scipy); returns padded x (N, Amax), objective, info."""
    import scipy.sparse as sp

    from scipy.optimize import linprog

    from iclr26sci.optim import SolverError

    n, amax = game._n, game._amax
    valid = _valid_index(game)
    k = valid.size
    owner = _player_of(game, valid)
    big = game._matrix()[valid][:, valid].tocsr()          # unnormalised
    e_t = sp.csr_matrix((np.ones(k), (np.arange(k), owner)), shape=(k, n))
    a_ub = sp.hstack([big, -e_t], format="csr")
    a_eq = sp.hstack([e_t.T, sp.csr_matrix((n, n))], format="csr")
    c = np.concatenate([np.zeros(k), np.ones(n)])
    if method == "ipm-nocrossover":
        x = _highs_ipm_no_crossover(a_ub, a_eq, c, k, n)
        if x is not None:
            out = np.zeros(n * amax)
            out[valid] = np.clip(x[:k], 0.0, None)
            out = out.reshape(n, amax)
            out /= out.sum(axis=1, keepdims=True)
            return out, float(x[k:].sum()) * game._pscale, {"solver": "highspy IPM (no crossover)"}
        method = "highs-ipm"
    bounds = [(0, None)] * k + [(None, None)] * n
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=a_eq, b_eq=np.ones(n), bounds=bounds, method=method)
    if res.status != 0:
        raise SolverError(str(res.status), res.message, "HiGHS")
    x = np.zeros(n * amax)
    x[valid] = np.clip(res.x[:k], 0.0, None)
    x = x.reshape(n, amax)
    x /= x.sum(axis=1, keepdims=True)
    return x, float(res.fun) * game._pscale, {"solver": f"scipy.linprog({method})", "nit": int(getattr(res, "nit", -1))}


def _highs_ipm_no_crossover(a_ub, a_eq, c, k, n):
    """HiGHS interior point without crossover through highspy; None if unavailable or not optimal."""
    import scipy.sparse as sp

    try:
        import highspy
    except ImportError:  # pragma: no cover
        return None
    a = sp.vstack([a_ub, a_eq]).tocsc()
    inf = highspy.kHighsInf
    import os
    import sys

    try:   # the banner is printed by the C++ constructor: silence stdout at the file-descriptor level
        sys.stdout.flush()
        saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        try:
            h = highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(devnull)
    except OSError:  # pragma: no cover - no usable stdout descriptor
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "ipm")
    h.setOptionValue("run_crossover", "off")
    lp = highspy.HighsLp()
    lp.num_col_ = k + n
    lp.num_row_ = a.shape[0]
    lp.col_cost_ = c
    lp.col_lower_ = np.concatenate([np.zeros(k), np.full(n, -inf)])
    lp.col_upper_ = np.full(k + n, inf)
    lp.row_lower_ = np.concatenate([np.full(k, -inf), np.ones(n)])
    lp.row_upper_ = np.concatenate([np.zeros(k), np.ones(n)])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = a.indptr
    lp.a_matrix_.index_ = a.indices
    lp.a_matrix_.value_ = a.data
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return np.asarray(h.getSolution().col_value)


# ----------------------------------------------------------------------------- interior point on the LCP
def _ipm_route(game: PolymatrixGame, tol: float, max_iter: int = 100, refine: int = 2, backend: str | None = None):
    r"""Mehrotra predictor-corrector interior point on the equilibrium LCP of a zero-sum game.

    Unknowns :math:`x\ge0` (valid actions), :math:`w` (one value per player), slacks
    :math:`s = E^\top w - \mathbf M x \ge 0`, with :math:`Ex = \mathbf 1` and :math:`x^\top s = 0`:
    every action earns at most the player's value and only value-earning actions are played, i.e.
    exactly the Nash equilibria. The iterates stay feasible (uniform start, :math:`w` large), so
    :math:`E\,\Delta x = 0`, and on those directions :math:`\Delta x^\top\mathbf M\Delta x = 0`
    because :math:`x^\top\mathbf Mx` (the sum of utilities) vanishes on the product of simplices:
    the LCP is monotone and the Newton matrix

    .. math::  \begin{pmatrix} X^{-1}S-\mathbf M & E^\top\\ E & 0\end{pmatrix}

    is nonsingular. This is half the size of the LP's KKT system (the LP's dual repeats the
    primal); restricted to the null space of :math:`E` it is one LU of order
    :math:`\sum_i (A_i - 1)` per iteration, dense (LAPACK) or sparse (SuperLU on the player
    graph's pattern), whichever the measured cost model of :mod:`._lcp_ipm` predicts cheaper among
    those that fit in memory (``backend`` forces one). Once Tapia's support guess is stable it
    solves exactly on that support (order :math:`|S| - N`) and returns the solution when it
    certifies; otherwise the best certified iterate ``refine`` iterations after the first.

    Returns (padded profile or None, info).
    """
    from ._lcp_ipm import choose_backend, lcp_interior_point, predicted_costs

    if backend is None:
        backend = choose_backend(game)
        if backend is None:
            c = predicted_costs(game)
            return None, {"status": f"neither interior point fits in memory (dense {c['dense_bytes'] / 2**30:.1f} GiB, "
                                    f"sparse {c['sparse_bytes'] / 2**30:.1f} GiB, available "
                                    f"{c['available_bytes'] / 2**30:.1f} GiB)", "ipm_iterations": 0}
    return lcp_interior_point(game, tol, backend, max_iter=max_iter, refine=refine)


# ----------------------------------------------------------------------------- fast exact route
def _proj_simplex_rows(y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Euclidean projection of every row onto its simplex (padded entries kept at 0)."""
    big = np.where(mask, y, -np.inf)
    u = -np.sort(-big, axis=1)
    u_f = np.where(np.isfinite(u), u, 0.0)
    css = np.cumsum(u_f, axis=1) - 1.0
    ks = np.arange(1, y.shape[1] + 1)
    cond = (u - css / ks > 0) & np.isfinite(u)
    rho = cond.sum(axis=1)
    theta = css[np.arange(y.shape[0]), rho - 1] / rho
    return np.where(mask, np.maximum(y - theta[:, None], 0.0), 0.0)


def _support_solve(game: PolymatrixGame, x: np.ndarray, tol_supp: float, tol_br: float):
    """Exact equilibrium on the supports/best-response sets suggested by x (None if it fails)."""
    import scipy.sparse as sp

    n, amax = game._n, game._amax
    g = game._grad(x, normalize=False) / game._pscale      # the units of game._matrix()
    gm = np.where(game._mask, g, -np.inf)
    best = gm.max(axis=1)
    supp = (x > tol_supp) & game._mask
    br = (gm >= best[:, None] - tol_br) & game._mask
    supp |= (gm == best[:, None]) & ~supp.any(axis=1, keepdims=True)
    s_idx = np.flatnonzero(supp.ravel())
    b_idx = np.flatnonzero(br.ravel())
    ns = s_idx.size
    big = game._matrix()
    m_bs = big[b_idx][:, s_idx]
    rows_b = b_idx // amax
    cols_s = s_idx // amax
    # unknowns: x_S (ns), w (n);   equations: M_BS x_S - w_owner = 0 ; sum_{S_u} x = 1
    top = sp.hstack([m_bs, -sp.csr_matrix((np.ones(b_idx.size), (np.arange(b_idx.size), rows_b)),
                                           shape=(b_idx.size, n))])
    bot = sp.hstack([sp.csr_matrix((np.ones(ns), (cols_s, np.arange(ns))), shape=(n, ns)),
                     sp.csr_matrix((n, n))])
    a = sp.vstack([top, bot]).tocsr()
    rhs = np.concatenate([np.zeros(b_idx.size), np.ones(n)])
    try:
        if a.shape[0] == a.shape[1]:
            if a.shape[0] <= 8000:
                sol = np.linalg.solve(a.toarray(), rhs)
            else:
                from scipy.sparse.linalg import spsolve

                sol = spsolve(a.tocsc(), rhs)
        else:
            if a.shape[1] > 8000:
                return None
            sol = np.linalg.lstsq(a.toarray(), rhs, rcond=None)[0]
    except (np.linalg.LinAlgError, RuntimeError):
        return None
    if not np.all(np.isfinite(sol)):
        return None
    xs = sol[:ns]
    if xs.min() < -1e-9:
        return None
    out = np.zeros(n * amax)
    out[s_idx] = np.clip(xs, 0.0, None)
    out = out.reshape(n, amax)
    sums = out.sum(axis=1, keepdims=True)
    if np.any(sums <= 0):
        return None
    return out / sums


def _block_pivot(game: PolymatrixGame, x: np.ndarray, tol: float, max_steps: int = 60):
    """Principal pivoting from the supports of x (zero-sum games): solve the square system
    "every support action is a best response, supports sum to one"; drop the most negative
    support action, else add the most profitable missing deviation; repeat until neither
    exists (an exact equilibrium). Returns a profile or None."""
    import scipy.sparse as sp

    n, amax = game._n, game._amax
    big = game._matrix()
    supp = (x > 1e-3 * x.max(axis=1, keepdims=True)) & game._mask
    for _ in range(max_steps):
        s_idx = np.flatnonzero(supp.ravel())
        ns = s_idx.size
        owner = s_idx // amax
        a = sp.vstack([
            sp.hstack([big[s_idx][:, s_idx], -sp.csr_matrix((np.ones(ns), (np.arange(ns), owner)), shape=(ns, n))]),
            sp.hstack([sp.csr_matrix((np.ones(ns), (owner, np.arange(ns))), shape=(n, ns)), sp.csr_matrix((n, n))]),
        ]).tocsr()
        rhs = np.concatenate([np.zeros(ns), np.ones(n)])
        try:
            sol = np.linalg.solve(a.toarray(), rhs) if a.shape[0] <= 8000 else \
                __import__("scipy.sparse.linalg", fromlist=["spsolve"]).spsolve(a.tocsc(), rhs)
        except (np.linalg.LinAlgError, RuntimeError):
            return None
        if not np.all(np.isfinite(sol)):
            return None
        xs, w = sol[:ns], sol[ns:]
        xfull = np.zeros(n * amax)
        xfull[s_idx] = xs
        xfull = xfull.reshape(n, amax)
        changed = False
        neg = (xfull < -1e-12) & supp
        if neg.any():
            # single principal pivot: drop the most negative support action
            u, a_ = np.unravel_index(np.argmin(np.where(neg, xfull, np.inf)), xfull.shape)
            supp[u, a_] = False
            changed = True
        else:
            g = game._grad(xfull, normalize=False) / game._pscale
            viol = np.where(game._mask & ~supp, g - w[:, None], -np.inf)
            if viol.max() > 1e-12 * max(1.0, np.abs(w).max()):
                u, a_ = np.unravel_index(np.argmax(viol), viol.shape)
                supp[u, a_] = True
                changed = True
        if not changed:
            out = np.clip(xfull, 0.0, None)
            return out / out.sum(axis=1, keepdims=True)
        if not supp.any(axis=1).all():
            return None
    return None


def _support_route(game: PolymatrixGame, iters: int, tol: float, check_every: int = 1000):
    """Optimistic gradient play on the monotone VI of a zero-sum polymatrix game, with periodic
    attempts to identify the supports and solve for the exact equilibrium on them.

    Returns (certified profile or None, iterations used)."""
    mask = game._mask
    x = mask / game._acts[:, None]
    big = game._matrix()
    v = np.random.default_rng(0).standard_normal(big.shape[0])
    for _ in range(20):
        v = big.T @ (big @ v)
        v /= np.linalg.norm(v)
    lip = float(np.sqrt(np.linalg.norm(big.T @ (big @ v)))) + 1e-12
    eta = 0.5 / lip
    g_prev = game._grad(x, normalize=False)
    for it in range(1, iters + 1):
        g = game._grad(x, normalize=False)
        if it % check_every == 0:
            cand = _block_pivot(game, x, tol)
            if cand is not None and _certify(game, cand) < tol:
                return cand, it
        x = _proj_simplex_rows(x + eta * (2 * g - g_prev), mask)
        g_prev = g
    return None, iters


def _dense_enough(game: PolymatrixGame) -> bool:
    """The measured cost model picks the dense interior point (memory permitting) for this game."""
    from ._lcp_ipm import choose_backend

    return game._src.size * game._amax ** 2 > 50_000 and choose_backend(game) == "dense"


def _large(game: PolymatrixGame) -> bool:
    """More than 5e4 payoff nonzeros: the interior point (dense or sparse) rather than HiGHS's simplex."""
    return game._src.size * game._amax ** 2 > 50_000


def _certify(game: PolymatrixGame, x: np.ndarray) -> float:
    """Max gap in the game's own normalisation."""
    return float(game._gap(x, game._grad(x)).max())


def _rescaled(game: PolymatrixGame, per_player: bool) -> PolymatrixGame:
    """A copy of ``game`` with payoffs multiplied by exact powers of two (max entry about 1)."""
    h = PolymatrixGame.__new__(PolymatrixGame)
    h.__dict__.update(game.__dict__)
    if per_player:
        top = np.zeros(game._n)
        np.maximum.at(top, game._src, np.abs(game._blocks).max(axis=(1, 2)))
        expo = np.where(top > 0, np.frexp(np.where(top > 0, top, 1.0))[1], 0)
        factor = np.ldexp(1.0, -expo)[game._src]
    else:
        factor = np.full(game._src.size, 1.0 / game._pscale)
    h._setup(game._nodes, game._acts, game._src, game._dst, game._blocks * factor[:, None, None], game.normalize,
             graph=game._graph)
    return h


def solve_equilibrium(game: PolymatrixGame, method: str = "auto", *, tol: float = 1e-6,
                      max_pivots: int = 100_000, first_order_iters: int = 20_000) -> EquilibriumResult:
    r"""An exact Nash equilibrium of a polymatrix game, with a certificate.

    Parameters
    ----------
    game : PolymatrixGame
        The game to solve (zero-sum games by the LP/interior point; any game by Lemke).
    method : {"auto", "lp", "ipm", "support", "lemke"}
        ``"auto"``: zero-sum games use ``"ipm"`` when the payoff matrix has more
        than 5e4 nonzeros and the LP (HiGHS's simplex) otherwise; general-sum
        games use Lemke.
        ``"lp"`` is the CCDP LP with HiGHS (dual simplex for small games,
        interior point without crossover when the payoff matrix has more than
        5e4 nonzeros, rerun with crossover if the certificate fails).
        ``"ipm"`` is a Mehrotra interior point on the equilibrium LCP
        (zero-sum only; see ``_ipm_route``) with dense (LAPACK) or sparse
        (SuperLU on the player graph) Newton steps, whichever a measured cost
        model predicts cheaper among those whose memory fits, and an exact solve
        on the support it identifies; it falls back to the LP when it cannot
        certify or neither back end fits in memory.
        ``"support"`` is optimistic gradient play followed by an exact linear
        solve on the identified supports (zero-sum only), falling back to
        ``"ipm"`` (dense games) or the LP when it cannot certify;
        ``"lemke"`` works for every game (small N).
    tol : float > 0
        Certificate: the returned profile has ``max_i gap_i < tol``
        (``certified`` is False otherwise, e.g. when Lemke hits ``max_pivots``).
    max_pivots : int >= 1
        Cap on Lemke's complementary pivots (general-sum games).
    first_order_iters : int >= 1
        Cap on the gradient-play iterations of ``method="support"``.

    Returns
    -------
    EquilibriumResult

    Examples
    --------
    >>> from iclr26sci.games import PolymatrixGame, solve_equilibrium
    >>> zs = PolymatrixGame.random(30, 3, p=0.3, payoffs="zero_sum", rng=0)
    >>> r = solve_equilibrium(zs)
    >>> r.method, r.certified, bool(abs(r.objective) < 1e-7)
    ('lp', True, True)
    >>> gs = PolymatrixGame.random(5, 2, payoffs="uniform", rng=0)
    >>> solve_equilibrium(gs).method
    'lemke'

    References
    ----------
    .. [1] Cai, Candogan, Daskalakis & Papadimitriou, "Zero-sum polymatrix games: a
       generalization of minmax", Math. Oper. Res. 41(2), 2016.
    .. [2] Miller & Zucker, "Copositive-plus Lemke algorithm solves polymatrix
       games", Oper. Res. Lett. 10(5), 1991.
    """
    if not isinstance(game, PolymatrixGame):
        raise InputError("game", f"got {type(game).__name__}", "a PolymatrixGame")
    check_option(method, "method", ("auto", "lp", "ipm", "support", "lemke"))
    tol = check_in_range(tol, "tol", 0.0, low_open=True)
    max_pivots = check_positive_int(max_pivots, "max_pivots")
    first_order_iters = check_positive_int(first_order_iters, "first_order_iters")
    zs = game.is_zero_sum() if method != "lemke" else False
    if method in ("lp", "ipm", "support") and not zs:
        raise InputError("method", f"{method!r} needs a zero-sum game but this game is not zero-sum",
                         "method='lemke' or 'auto' for general-sum games")
    t0 = time.perf_counter()
    if game._pscale != 1.0:
        # payoffs near the float range: solve an exactly rescaled copy (powers of two; per player for
        # general-sum games, where each player's payoffs may be scaled on their own, globally for
        # zero-sum ones), which has the same equilibria, and certify in the original game
        res = solve_equilibrium(_rescaled(game, per_player=not zs), method, tol=tol, max_pivots=max_pivots,
                                first_order_iters=first_order_iters)
        x = game._pad(res.strategies)
        gaps = game._gap(x, game._grad(x))
        obj = res.objective * game._pscale if zs else float("nan")
        return EquilibriumResult(res.strategies, gaps, float(gaps.max()), bool(gaps.max() < tol), res.method, obj,
                                 time.perf_counter() - t0, {**res.info, "rescaled": True})
    info: dict = {}
    if method == "auto":
        if zs:
            method = "ipm" if _large(game) else "lp"
        else:
            method = "lemke"
    if method == "support":
        cand, used = _support_route(game, first_order_iters, tol)
        info["first_order_iterations"] = used
        if cand is not None:
            gaps = game._gap(cand, game._grad(cand))
            return EquilibriumResult(game._unpad(cand), gaps, float(gaps.max()), True, "support",
                                     float(game.utility(cand, normalize=False).sum()),
                                     time.perf_counter() - t0, {**info, "fallback": False})
        # why it can fail (diagnosed at N = 500): optimistic gradient play converges slowly (after
        # 20,000 iterations the profile is 1e-3 away, 1-2 support actions wrong), and for pairwise
        # zero-sum games the support system is skew-symmetric, so a single add/drop pivot from a
        # solvable support always lands on an exactly singular system (|S| + N odd).
        large = _large(game)
        info["fallback"] = ("support identification did not certify; solved by the interior point"
                            if large else "support identification did not certify; solved the LP")
        method = "ipm" if large else "lp"
    if method == "ipm":
        cand, inf2 = _ipm_route(game, tol)
        info.update(inf2)
        if cand is not None:
            gaps = game._gap(cand, game._grad(cand))
            return EquilibriumResult(game._unpad(cand), gaps, float(gaps.max()), True, "ipm",
                                     float(game.utility(cand, normalize=False).sum()),
                                     time.perf_counter() - t0, {"fallback": False, **info})
        info["fallback"] = f"interior point did not certify ({inf2.get('status')}); solved the LP"
        method = "lp"
    if method == "lp":
        large = game._src.size * game._amax ** 2 > 50_000
        x, obj, inf2 = zero_sum_lp(game, method="ipm-nocrossover" if large else "highs")
        gaps = game._gap(x, game._grad(x))
        if gaps.max() >= tol and large:      # certificate failed: rerun with crossover to a vertex
            x, obj, inf2 = zero_sum_lp(game, method="highs-ipm")
            gaps = game._gap(x, game._grad(x))
        info.update(inf2)
        return EquilibriumResult(game._unpad(x), gaps, float(gaps.max()), bool(gaps.max() < tol), "lp", obj,
                                 time.perf_counter() - t0, info)
    x, inf2 = lemke_equilibrium(game, max_pivots=max_pivots)
    info.update(inf2)
    gaps = game._gap(x, game._grad(x))
    return EquilibriumResult(game._unpad(x), gaps, float(gaps.max()), bool(gaps.max() < tol), "lemke",
                             float("nan"), time.perf_counter() - t0, info)


# ----------------------------------------------------------------------------- Lemke
def _lemke(m: np.ndarray, q: np.ndarray, d: np.ndarray, max_pivots: int):
    """Lemke's method with covering vector d for w = q + M z, w, z >= 0, w'z = 0.

    Dense tableau with lexicographic ratio test; returns (z, pivots, status).
    """
    n = q.size
    # tableau rows: w - M z - d z0 = q  ->  [I | -M | -d | q]
    orig = np.hstack([np.eye(n), -m, -d[:, None], q[:, None]]).astype(float)
    tab = orig.copy()
    basis = np.arange(n)                      # variables 0..n-1 are w, n..2n-1 are z, 2n is z0
    if np.all(q >= 0):
        return np.zeros(n), 0, "trivial"
    ratios = q / d
    r = int(np.argmin(ratios))
    entering = 2 * n
    pivots = 0

    def pivot(row, col):
        tab[row] /= tab[row, col]
        colv = tab[:, col].copy()
        colv[row] = 0.0
        tab[:] -= np.outer(colv, tab[row])

    leaving = basis[r]
    pivot(r, entering)
    basis[r] = entering
    entering = leaving + n if leaving < n else leaving - n   # complement of the leaving variable
    seen = set()
    while pivots < max_pivots:
        pivots += 1
        if pivots % 50 == 0:   # refactorise: recompute the tableau from the original data
            try:
                tab[:] = np.linalg.solve(orig[:, basis], orig)
            except np.linalg.LinAlgError:
                return None, pivots, f"singular basis (dups={len(basis) - len(set(basis.tolist()))})"
            key = (entering, tuple(np.sort(basis)))
            if key in seen:
                return None, pivots, "cycling"
            seen.add(key)
        col = tab[:, entering]
        pos = np.flatnonzero(col > 1e-12)
        if pos.size == 0:
            return None, pivots, "ray termination"
        rat = tab[pos, -1] / col[pos]
        best = rat.min()
        cand = pos[rat <= best + 1e-12 * max(1.0, abs(best))]
        if cand.size > 1:
            z0row = cand[basis[cand] == 2 * n]
            if z0row.size:
                cand = z0row
            else:   # lexicographic tie-break on the basis-inverse columns
                lex = tab[cand][:, :n] / col[cand][:, None]
                order = np.lexsort(lex.T[::-1])
                cand = cand[order[:1]]
        row = int(cand[0])
        leaving = basis[row]
        pivot(row, entering)
        basis[row] = entering
        if leaving == 2 * n:
            z = np.zeros(n)
            for k, b in enumerate(basis):
                if n <= b < 2 * n:
                    z[b - n] = tab[k, -1]
            return z, pivots, "solved"
        entering = leaving + n if leaving < n else leaving - n
    return None, pivots, "pivot cap"


def lemke_equilibrium(game: PolymatrixGame, *, max_pivots: int = 100_000) -> tuple[np.ndarray, dict]:
    r"""Nash equilibrium of a (general-sum) polymatrix game by Lemke's method.

    LCP (Howson 1972; Miller & Zucker 1991) in unknowns :math:`z=(x, y)\ge 0`:

    .. math::

        w = \begin{pmatrix}0\\ -\mathbf 1\end{pmatrix}
          + \begin{pmatrix}-\tilde{\mathbf M} & -E^\top\\ E & 0\end{pmatrix} z
          \ \ge 0,\qquad w^\top z = 0,

    where :math:`\tilde{\mathbf M}` is the payoff block matrix shifted so that
    every block (including the diagonal and non-edge blocks) is strictly
    negative — a change of every player's payoff by a constant, which leaves
    the equilibria unchanged — and :math:`E` sums each player's actions.
    Then :math:`-y_u` is player *u*'s value, :math:`y>0` forces
    :math:`\mathbf 1^\top x_u=1`, and complementarity puts :math:`x_u` on best
    responses. The matrix is copositive-plus
    (:math:`z^\top Mz=-x^\top\tilde{\mathbf M}x\ge0`), so Lemke's method with
    covering vector :math:`\mathbf 1` ends at a solution. (The spec's form
    with :math:`v=v^+-v^-` is equivalent but degenerate on every basis, since
    the rows of :math:`v^+` and :math:`v^-` are negatives of each other.)

    Returns the padded profile (N, Amax) and an info dict; the dense tableau
    has size :math:`(\sum_i A_i+2N)^2`, so this is for small and medium games.

    Parameters
    ----------
    game : PolymatrixGame
        Any polymatrix game (general-sum), with :math:`\sum_i A_i + N \le 6000`.
    max_pivots : int >= 1
        Cap on complementary pivots; at the cap the uniform profile is returned with
        ``info["status"] == "pivot cap"``.

    Returns
    -------
    x : ndarray (N, Amax)
        The equilibrium profile (padded).
    info : dict
        ``pivots``, ``status``, ``lcp_size`` and whether the exact support solve polished it.

    Examples
    --------
    >>> from iclr26sci.games import PolymatrixGame, lemke_equilibrium
    >>> g = PolymatrixGame.random(4, 2, rng=0)
    >>> x, info = lemke_equilibrium(g)
    >>> info["status"], bool(g.nash_gap(x).max() < 1e-9)
    ('solved', True)
    """
    if not isinstance(game, PolymatrixGame):
        raise InputError("game", f"got {type(game).__name__}", "a PolymatrixGame")
    max_pivots = check_positive_int(max_pivots, "max_pivots")
    n, amax = game._n, game._amax
    valid = _valid_index(game)
    k = valid.size
    size = k + n
    if size > 6000:
        raise InputError("game", f"the LCP would have {size} rows (dense tableau of {size}x{size})",
                         "a game with sum of action counts + N <= 6000 for Lemke")
    big = game._matrix()[valid][:, valid].toarray()
    big = big * game._scale(None)[_player_of(game, valid)][:, None]
    shift = big.max() + 1.0
    mt = big - shift                                  # every entry strictly negative
    owner = _player_of(game, valid)
    e = np.zeros((n, k))
    e[owner, np.arange(k)] = 1.0
    m = np.zeros((size, size))
    m[:k, :k] = -mt
    m[:k, k:] = -e.T
    m[k:, :k] = e
    # q_x = 0 makes every basis degenerate; a tiny fixed perturbation of q and of the covering
    # vector (a payoff change below 1e-7) removes the ties, and the exact support solve below
    # polishes the perturbed equilibrium back to an exact one of the original game.
    pert = np.random.default_rng(12345)
    scale = max(1.0, float(np.abs(mt).max()))
    q = np.concatenate([1e-8 * scale * pert.uniform(1.0, 2.0, k), -np.ones(n)])
    d = pert.uniform(1.0, 2.0, size)
    z, piv, status = _lemke(m, q, d, max_pivots)
    info = {"pivots": piv, "status": status, "lcp_size": size}
    if z is None:
        x = game._mask / game._acts[:, None]
        return x, info
    x = np.zeros(n * amax)
    x[valid] = np.clip(z[:k], 0.0, None)
    x = x.reshape(n, amax)
    s = x.sum(axis=1, keepdims=True)
    x = np.where(s > 0, x / np.where(s > 0, s, 1.0), game._mask / game._acts[:, None])
    gap0 = _certify(game, x)
    info["gap_before_polish"] = gap0
    for ts in (1e-7, 1e-6, 1e-5):
        cand = _support_solve(game, x, ts, 1e-5)
        if cand is not None and _certify(game, cand) <= gap0:
            info["polished"] = True
            return cand, info
    info["polished"] = False
    return x, info
