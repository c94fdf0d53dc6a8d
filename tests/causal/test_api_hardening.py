"""Result objects (short repr, summary, to_dict), import time, progress bars, README example of causal."""
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

from iclr26sci.causal import (BreakdownResult, ImprovementCertificate, SharpPolicyLearner, ValueBounds,
                              breakdown_gamma, cross_fit_nuisances, policy_improvement, sharp_value_bounds,
                              simulate_v1)


@pytest.fixture(scope="module")
def v1():
    return simulate_v1(600, 2.0, rng=0)[0]


def _check_result(res, *words):
    r = repr(res)
    assert len(r) < 250 and "array(" not in r and "\n" not in r, r
    s = res.summary()
    assert isinstance(s, str) and all(w in s for w in words), s
    d = res.to_dict()
    json.dumps(d)                                       # JSON-serialisable, no arrays
    return d


def test_value_bounds_result(v1):
    b = sharp_value_bounds(v1, 1, 2.0, cv=2, rng=0)
    d = _check_result(b, "Gamma=2", "efficient")
    assert d["lower"]["value"] == b.lower.value and d["width"] == pytest.approx(b.width)
    lo, hi = b.conf_int()
    assert lo < b.lower.value < b.upper.value < hi
    assert b.psi_upper.shape == (v1.n,)
    assert str(b) == b.summary()


def test_certificate_and_breakdown_results(v1):
    c = policy_improvement(v1, 0, None, 2.0, cv=2, rng=0)
    d = _check_result(c, "Gamma=2")
    assert d["certified"] == c.certified and d["confidence_bound"] == pytest.approx(c.confidence_bound)
    assert c.certified == (c.confidence_bound < 0)
    r = breakdown_gamma(v1, 0, 1, cv=2, rng=0, gamma_max=8.0)
    d = _check_result(r, "Gamma")
    assert d["gamma"] == r.gamma and isinstance(d["curve"], list) and d["curve"]


def test_nuisances_result(v1):
    nuis = cross_fit_nuisances(v1.X, v1.A, v1.Y, 2, [2 / 3], cv=2, rng=0)
    d = _check_result(nuis, "n=600")
    assert d["n_folds"] == 2 and d["levels"] == [2 / 3]


def test_result_constructors_roundtrip():
    from iclr26sci.core import Estimate

    b = ValueBounds(Estimate(0.1, 0.02, n=50), Estimate(0.4, 0.03, n=50), gamma=1.5, outcome="reward",
                    estimator="plugin")
    assert "reward" in b.summary() and b.to_dict()["gamma"] == 1.5
    c = ImprovementCertificate(Estimate(0.2, 0.05, n=50), True, gamma=2.0, form="paper", outcome="reward", alpha=0.1)
    assert c.confidence_bound == pytest.approx(0.2 - 1.2815515655446004 * 0.05)
    assert BreakdownResult(1.0, False, False).summary().startswith("no certified")
    assert "censored" in BreakdownResult(50.0, True, True).summary()


def test_import_is_light():
    """`import iclr26sci.causal` loads neither scikit-learn, scipy.stats nor torch (checked in a fresh process)."""
    code = ("import sys; import iclr26sci.causal; "
            "print(any(m in sys.modules for m in ('sklearn', 'scipy.stats', 'torch')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False"]


def test_leggauss_nodes_are_lazy():
    code = ("import iclr26sci.causal._sim as s; print(s._gauss_legendre.cache_info().currsize); "
            "s.v1_true_value('uniform', 2.0); print(s._gauss_legendre.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", "1"]


def test_progress_bars_wired(monkeypatch, v1):
    """Cross-fitting and the policy fit report progress through iclr26sci.core.progress."""
    from iclr26sci.causal import _nuisance, _policy

    seen = []

    def spy(iterable, *, desc="", total=None, enabled=None):
        seen.append((desc, total))
        return iterable

    monkeypatch.setattr(_nuisance, "progress", spy)
    monkeypatch.setattr(_policy, "progress", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        SharpPolicyLearner(2.0, cv=3, rng=0).fit(v1)
    descs = dict(seen)
    assert descs["cross-fitting nuisances"] == 3
    assert descs["policy fit (L-BFGS starts)"] >= 3


def test_progress_silent_off_terminal(capsys, v1):
    """Under pytest (no terminal) the bars print nothing."""
    sharp_value_bounds(v1, 1, 2.0, cv=2, rng=0)
    cap = capsys.readouterr()
    assert cap.out == "" and "it/s" not in cap.err


def test_nhefs_readme_example_runs():
    """README's causal example, unchanged (n = 1566; a few seconds)."""
    from data_adapters import load_nhefs

    from iclr26sci.causal import SharpPolicyLearner, breakdown_gamma, policy_improvement, sharp_value_bounds

    data = load_nhefs()
    b = sharp_value_bounds(data, 1, gamma=2.0, outcome="loss", cv=5, rng=0)
    assert b.lower.value < b.upper.value and b.upper.conf_int()[0] < b.upper.value
    learner = SharpPolicyLearner(gamma=2.0, policy_class="logistic", cv=5, rng=0).fit(data)
    assert learner.predict(data.X).shape == (data.n,)
    assert np.allclose(learner.predict_proba(data.X).sum(axis=1), 1)
    cert = policy_improvement(data, learner, 1, gamma=2.0)
    assert isinstance(cert.certified, bool)
    g = breakdown_gamma(data, 0, 1, rng=0).gamma
    assert 1.0 <= g < 3.0


def test_shared_spline_basis_gives_the_same_nuisances():
    """Cross-fitting shares one spline basis per arm and fold between the quantile and masked-mean models; the
    nuisances are exactly those of separately fitted bases (the memo is a pure speed-up)."""
    import numpy as np

    from iclr26sci.causal import cross_fit_nuisances, quantile_level, simulate_v1
    from iclr26sci.causal import _nuisance

    data, _ = simulate_v1(600, 2.0, d=3, rng=1)
    lv = [quantile_level(2.0, "upper"), quantile_level(2.0, "lower")]
    shared = cross_fit_nuisances(data.X, data.A, data.Y, 2, lv, cv=3, rng=0)

    class NoMemo:
        def set(self, value):
            return None

        def get(self):
            return None

        def reset(self, token):
            return None

    orig = _nuisance._BASIS_MEMO
    _nuisance._BASIS_MEMO = NoMemo()
    try:
        separate = cross_fit_nuisances(data.X, data.A, data.Y, 2, lv, cv=3, rng=0)
    finally:
        _nuisance._BASIS_MEMO = orig
    np.testing.assert_array_equal(shared.e, separate.e)
    for level in lv:
        for a, b in zip(shared.get(level), separate.get(level)):
            np.testing.assert_array_equal(a, b)
