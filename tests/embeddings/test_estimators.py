"""scikit-learn conventions of the embeddings estimators, the member-mismatch guard, and the import time."""
import subprocess
import sys
import warnings
import zlib

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

from iclr26sci.embeddings import UEC, MismatchedMembersWarning, ProbabilisticEncoder, TextEncoder, encoders

TXT = ["Fire crews fought the blaze.", "Shares fell."]

#: scikit-learn's check_estimator does not apply: these estimators take lists of texts / text pairs, not
#: numeric arrays X (every check of the suite feeds numeric X and y), and ProbabilisticEncoder needs an
#: encoder argument (not default-constructible). The API checks that do apply are run below.
APPLICABLE_CHECKS = ("check_no_attributes_set_in_init", "check_get_params_invariance", "check_set_params")


@pytest.fixture(scope="module")
def lsa():
    return encoders.lsa_lee(n_components=16, rng=0)


@pytest.fixture(scope="module")
def pairs():
    return encoders.lee_pairs(8, rng=0)


def test_estimators_are_sklearn_estimators_and_clone(lsa, pairs):
    pe = ProbabilisticEncoder(lsa, dim=16, prune=False, rng=3, name="lsa")
    assert isinstance(pe, BaseEstimator)
    assert pe.get_params()["dim"] == 16 and pe.get_params()["encoder"] is lsa
    pe.fit_laplace(pairs, batch_size=4)
    c = clone(pe)
    assert c.get_params() == pe.get_params() and c.encoder is lsa  # the frozen encoder is shared, not copied
    assert not c.is_fitted and pe.is_fitted  # a clone is unfitted
    c.fit(pairs, batch_size=4)
    np.testing.assert_array_equal(c.encode(TXT).var, pe.encode(TXT).var)
    ens = UEC([ProbabilisticEncoder(lsa, rng=k).fit_laplace(pairs) for k in (3, 4)], temperature=3.0, beta=0.2)
    assert isinstance(ens, BaseEstimator) and ens.get_params()["temperature"] == 3.0
    e2 = clone(ens)
    assert e2.get_params(deep=False)["beta"] == 0.2 and not e2.is_fitted and ens.is_fitted
    e2.fit(pairs)
    np.testing.assert_allclose(e2.similarity(TXT, TXT), ens.similarity(TXT, TXT), rtol=1e-12)
    assert e2.n_members_ == 2 and e2.dim_ == 16
    assert ens.set_params(beta=0.0) is ens and ens.beta == 0.0
    assert "UEC(" in repr(ens) and len(repr(pe)) < 200


@pytest.mark.parametrize("name", APPLICABLE_CHECKS)
def test_applicable_sklearn_api_checks(lsa, name):
    from sklearn.utils import estimator_checks

    fn = getattr(estimator_checks, name)
    pe = ProbabilisticEncoder(lsa)
    fn(type(pe).__name__, pe)
    ens = UEC([ProbabilisticEncoder(lsa)])
    fn(type(ens).__name__, ens)


class _HashEncoder(TextEncoder):
    """A broken member: a pseudo-random vector per text (it knows nothing about meaning)."""

    name, dim = "random-hash", 16

    def _encode_batch(self, texts):
        return np.stack([np.random.default_rng(zlib.crc32(t.encode())).standard_normal(16) for t in texts])


def test_mismatch_guard_warns_when_weights_concentrate_on_a_far_worse_member(lsa):
    pairs = encoders.lee_pairs(48, rng=1)
    fit, held = pairs[:16], pairs[16:]
    good = ProbabilisticEncoder(lsa, rng=0).fit_laplace(fit, batch_size=8)
    broken = ProbabilisticEncoder(_HashEncoder(), rng=1, scale=1e-6).fit_laplace(fit, batch_size=8)  # tiny variance
    ens = UEC([good, broken], temperature=1.0, reduce="mean")
    with pytest.warns(MismatchedMembersWarning, match="random-hash") as rec:
        rows = ens.member_quality(held)
    assert "comparable strength" in str(rec[0].message)
    assert rows[1]["far_worse"] and not rows[0]["far_worse"] and rows[1]["mean_weight"] > 0.75
    assert rows[0]["top1_accuracy"] > 0.5 > 0.2 > rows[1]["top1_accuracy"]
    with pytest.warns(MismatchedMembersWarning):
        ens.fit(heldout_pairs=held)
    assert ens.member_quality_[1]["member"] == "random-hash"
    # the same broken member with an honest (uniform) weighting does not trigger it: weights do not concentrate
    with warnings.catch_warnings():
        warnings.simplefilter("error", MismatchedMembersWarning)
        UEC([good, broken], temperature=np.inf).member_quality(held)
        assert ens.member_quality(held, warn=False)[1]["far_worse"]


def test_import_is_lazy():
    code = "import sys; import iclr26sci.embeddings; print('torch' in sys.modules, 'sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]  # the estimators (torch, scikit-learn) load on first use
