import numpy as np
import ot
import pytest
import scipy.stats as ss
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from iclr26sci.core import InputError
from iclr26sci.prob import DiscreteLaw, wasserstein_distance

finite = st.floats(-100, 100, allow_nan=False, allow_infinity=False)


@st.composite
def laws(draw, max_atoms=8):
    n = draw(st.integers(1, max_atoms))
    x = draw(arrays(float, n, elements=finite))
    w = draw(arrays(float, n, elements=st.floats(0.01, 10)))
    return x, w


@given(laws(), laws())
def test_w1_matches_scipy_and_pot(u, v):
    (x, a), (y, b) = u, v
    ours = wasserstein_distance(x, y, a, b)
    assert ours == pytest.approx(ss.wasserstein_distance(x, y, a, b), abs=1e-9, rel=1e-9)
    pot = ot.emd2(a / a.sum(), b / b.sum(), np.abs(x[:, None] - y[None]))
    assert ours == pytest.approx(pot, abs=1e-7, rel=1e-7)


@given(laws(), laws(), st.sampled_from([1, 2, 3]))
def test_wp_symmetric_nonnegative_and_matches_lp(u, v, p):
    (x, a), (y, b) = u, v
    d = wasserstein_distance(x, y, a, b, p=p)
    assert d >= 0
    assert d == pytest.approx(wasserstein_distance(y, x, b, a, p=p), abs=1e-9)
    lp = ot.emd2(a / a.sum(), b / b.sum(), np.abs(x[:, None] - y[None]) ** p) ** (1 / p)
    assert d == pytest.approx(lp, abs=1e-6, rel=1e-6)


@given(laws(), laws(), laws(), st.sampled_from([1, 2]))
def test_triangle_inequality(u, v, w, p):
    d = lambda s, t: wasserstein_distance(s[0], t[0], s[1], t[1], p=p)  # noqa: E731
    assert d(u, v) <= d(u, w) + d(w, v) + 1e-9


@given(laws())
def test_zero_iff_equal(u):
    x, a = u
    assert wasserstein_distance(x, x, a, a) == pytest.approx(0, abs=1e-12)
    # permuted and split atoms describe the same law
    perm = np.argsort(-x)
    xx = np.concatenate([x[perm], x[perm]])
    aa = np.concatenate([a[perm], a[perm]]) / 2
    assert wasserstein_distance(x, xx, a, aa) == pytest.approx(0, abs=1e-9)
    assert DiscreteLaw(x, a) == DiscreteLaw(xx, aa)


@given(laws(), finite)
def test_shift_gives_distance_equal_to_shift(u, c):
    x, a = u
    for p in (1, 2):
        assert wasserstein_distance(x, x + c, a, a, p=p) == pytest.approx(abs(c), abs=1e-7, rel=1e-9)


def test_positive_for_different_laws():
    assert wasserstein_distance([0.0], [1e-3]) > 0
    assert wasserstein_distance([0, 1], [0, 2]) == pytest.approx(0.5)


@given(laws(), laws(), st.floats(0.05, 1.0))
def test_mean_cvar_bounded_by_w1(u, v, alpha):
    P, Q = DiscreteLaw(*u), DiscreteLaw(*v)
    w = P.wasserstein(Q)
    assert abs(P.mean() - Q.mean()) <= w + 1e-9
    assert abs(P.cvar(alpha) - Q.cvar(alpha)) <= w / alpha + 1e-7


def test_law_summaries():
    L = DiscreteLaw([0, 1, 1, 3])
    np.testing.assert_allclose(L.support, [0, 1, 3])
    np.testing.assert_allclose(L.weights, [0.25, 0.5, 0.25])
    assert L.mean() == pytest.approx(1.25)
    assert L.var() == pytest.approx(np.var([0, 1, 1, 3]))
    assert L.cvar(0.25) == pytest.approx(0.0)
    assert L.cvar(0.5) == pytest.approx(0.5)
    assert L.cvar(0.25, tail="upper") == pytest.approx(3.0)
    assert L.cvar(1.0) == pytest.approx(L.mean())
    np.testing.assert_allclose(L.quantile([0.0, 0.25, 0.26, 1.0]), [0, 0, 1, 3])
    np.testing.assert_allclose(L.cdf([-1, 0, 2, 3]), [0, 0.25, 0.75, 1])
    s = L.sample(1000, rng=0)
    assert set(np.unique(s)) <= {0.0, 1.0, 3.0}
    assert DiscreteLaw.point(2.0).mean() == 2.0
    assert "DiscreteLaw" in repr(L)


def test_bad_inputs():
    with pytest.raises(InputError, match="u_values"):
        wasserstein_distance([], [1.0])
    with pytest.raises(InputError, match="v_weights"):
        wasserstein_distance([0.0], [1.0, 2.0], None, [1.0])
    with pytest.raises(InputError, match="u_weights"):
        wasserstein_distance([0.0, 1.0], [1.0], [-1.0, 2.0])
    with pytest.raises(InputError, match="u_weights"):
        wasserstein_distance([0.0, 1.0], [1.0], [0.0, 0.0])
    with pytest.raises(InputError, match="`p`"):
        wasserstein_distance([0.0], [1.0], p=0.5)
    with pytest.raises(InputError, match="support"):
        DiscreteLaw([np.nan])
    with pytest.raises(InputError, match="alpha"):
        DiscreteLaw([1.0]).cvar(0.0)
    with pytest.raises(InputError, match="tail"):
        DiscreteLaw([1.0]).cvar(0.5, tail="middle")
    with pytest.raises(InputError, match="`q`"):
        DiscreteLaw([1.0]).quantile(1.5)
    with pytest.raises(InputError, match="other"):
        DiscreteLaw([1.0]).wasserstein([1.0])
