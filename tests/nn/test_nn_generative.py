"""Tests of the image flow models: UNetVelocity, frechet_distance, the cached fashion/digits flow models."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import torch
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from iclr26sci.core import InputError
from iclr26sci.nn import UNetVelocity, frechet_distance


# ------------------------------------------------------------------------------------------------ UNet
def _tiny(**kw):
    torch.manual_seed(0)
    kw.setdefault("base", 8)
    return UNetVelocity(**kw)


def test_unet_protocol_shapes_and_attributes():
    net = _tiny()
    x, t = torch.randn(5, 1, 28, 28), torch.rand(5)
    for cond in (None, torch.tensor([0, 1, 2, 9, 10])):
        assert net(x, t, cond).shape == x.shape
    assert net.event_shape == (1, 28, 28) and net.n_classes == 10 and net.cond_dim is None
    assert net.blocks[0] == "down0.0" and "mid" in net.blocks and len(net.blocks) == 2 * 1 + 1 + 2 * 2


def test_unet_zero_output_at_init_and_trainable():
    net = _tiny()
    x, t, c = torch.randn(4, 1, 28, 28), torch.rand(4), torch.tensor([0, 1, 2, 3])
    assert torch.count_nonzero(net(x, t, c)) == 0      # zero-initialised output layer
    loss = (net(x, t, c) - x).pow(2).mean()
    loss.backward()
    assert net.conv_out.weight.grad.abs().sum() > 0


def test_unet_condition_and_time_matter():
    net = _tiny()
    with torch.no_grad():                              # give the zero-initialised layers weights
        for p in net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    x, t = torch.randn(2, 1, 28, 28), torch.full((2,), 0.3)
    a = net(x, t, torch.tensor([1, 1]))
    b = net(x, t, torch.tensor([2, 2]))
    u = net(x, t, torch.tensor([10, 10]))
    assert not torch.allclose(a, b) and not torch.allclose(a, u)
    assert torch.allclose(net(x, t, None), u)          # None means the null label
    assert not torch.allclose(net(x, torch.full((2,), 0.8), torch.tensor([1, 1])), a)
    # rows are independent: one row's output does not depend on the other rows (GroupNorm, not BatchNorm)
    assert torch.allclose(net(x[:1], t[:1], torch.tensor([1])), a[:1], atol=1e-5)


def test_unet_variants_sizes_and_vector_condition():
    net = _tiny(n_classes=None, cond_dim=3, in_channels=3, image_size=32, channel_mult=(1, 2, 2), patch=2)
    x = torch.randn(2, 3, 32, 32)
    assert net(x, torch.rand(2), torch.randn(2, 3)).shape == x.shape
    net = _tiny(n_classes=None, image_size=8, patch=1, channel_mult=(1, 2))
    assert net(torch.randn(3, 1, 8, 8), torch.rand(3)).shape == (3, 1, 8, 8)
    net = _tiny(n_res=2, dropout=0.1)
    assert net(torch.randn(2, 1, 28, 28), torch.rand(2), torch.tensor([3, 4])).shape == (2, 1, 28, 28)


def test_unet_gradcheck_small():
    net = _tiny(base=4, image_size=8, patch=2, channel_mult=(1, 2), n_classes=3).double()
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.1 * torch.randn_like(p))
    x = torch.randn(2, 1, 8, 8, dtype=torch.float64, requires_grad=True)
    t = torch.rand(2, dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda z: net(z, t, torch.tensor([0, 3])), (x,))


@pytest.mark.bad_input("nn.UNetVelocity")
@pytest.mark.parametrize("kwargs, arg", [
    (dict(n_classes=0), "n_classes"), (dict(n_classes=2.5), "n_classes"), (dict(in_channels=0), "in_channels"),
    (dict(base=-1), "base"), (dict(channel_mult=()), "channel_mult"), (dict(channel_mult=(1, 0)), "channel_mult"),
    (dict(channel_mult="12"), "channel_mult"), (dict(channel_mult=(1, 2, 2, 2)), "channel_mult"),
    (dict(n_res=0), "n_res"), (dict(image_size=0), "image_size"), (dict(patch=3), "patch"),
    (dict(n_classes=10, cond_dim=4), "cond_dim"), (dict(dropout=1.0), "dropout"), (dict(dropout=True), "dropout"),
    (dict(emb_dim=0), "emb_dim"),
])
def test_unet_bad_construction(kwargs, arg):
    with pytest.raises(InputError, match=arg):
        UNetVelocity(**{"base": 8, **kwargs})


@pytest.mark.bad_input("nn.UNetVelocity")
def test_unet_bad_forward_inputs():
    net = _tiny()
    x, t, c = torch.randn(2, 1, 28, 28), torch.rand(2), torch.tensor([0, 1])
    with pytest.raises(InputError, match="`x`"):
        net(np.zeros((2, 1, 28, 28), np.float32), t, c)
    with pytest.raises(InputError, match="`x`"):
        net(torch.randn(2, 1, 27, 28), t, c)
    with pytest.raises(InputError, match="`x`"):
        net(torch.zeros(2, 1, 28, 28, dtype=torch.long), t, c)
    with pytest.raises(InputError, match="`t`"):
        net(x, torch.rand(3), c)
    with pytest.raises(InputError, match="`t`"):
        net(x, torch.tensor([0, 1]), c)
    with pytest.raises(InputError, match="`cond`"):
        net(x, t, torch.tensor([0, 11]))
    with pytest.raises(InputError, match="`cond`"):
        net(x, t, torch.tensor([-1, 0]))
    with pytest.raises(InputError, match="`cond`"):
        net(x, t, torch.tensor([0.0, 1.0]))
    with pytest.raises(InputError, match="`cond`"):
        net(x, t, torch.tensor([0, 1, 2]))
    unc = _tiny(n_classes=None)
    with pytest.raises(InputError, match="`cond`"):
        unc(x, t, c)
    vec = _tiny(n_classes=None, cond_dim=2)
    with pytest.raises(InputError, match="`cond`"):
        vec(x, t, None)
    with pytest.raises(InputError, match="`cond`"):
        vec(x, t, torch.randn(2, 3))


# ------------------------------------------------------------------------------------------------ FID
def _reference_fid(a, b):
    """The textbook formula with scipy's (non-symmetric) sqrtm."""
    mu_a, mu_b = a.mean(0), b.mean(0)
    ca, cb = np.atleast_2d(np.cov(a, rowvar=False)), np.atleast_2d(np.cov(b, rowvar=False))
    root = scipy.linalg.sqrtm(ca @ cb)
    return float(np.sum((mu_a - mu_b) ** 2) + np.trace(ca) + np.trace(cb) - 2 * np.trace(root).real)


@pytest.mark.parametrize("d", [1, 3, 16, 64])
def test_fid_matches_scipy_sqrtm(d):
    rng = np.random.default_rng(d)
    A = rng.normal(size=(d, d))
    a = rng.normal(size=(400, d)) @ A
    b = rng.normal(size=(300, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d)
    ours = frechet_distance(a, b)
    assert ours == pytest.approx(_reference_fid(a, b), rel=1e-7, abs=1e-9)
    assert ours == pytest.approx(frechet_distance(b, a), rel=1e-7)      # symmetric


def test_fid_one_dimensional_closed_form():
    rng = np.random.default_rng(0)
    a, b = rng.normal(1.0, 2.0, size=(50, 1)), rng.normal(-0.5, 0.7, size=(80, 1))
    ma, mb, sa, sb = a.mean(), b.mean(), a.std(ddof=1), b.std(ddof=1)
    assert frechet_distance(a, b) == pytest.approx((ma - mb) ** 2 + (sa - sb) ** 2, rel=1e-10)


def test_fid_commuting_covariances_closed_form():
    # diagonal covariances: d^2 = |mu_a - mu_b|^2 + sum_i (sqrt(a_i) - sqrt(b_i))^2
    rng = np.random.default_rng(1)
    z = rng.normal(size=(20000, 4))
    z = (z - z.mean(0)) / z.std(0, ddof=1)
    z = z @ np.linalg.inv(np.linalg.cholesky(np.cov(z, rowvar=False))).T      # exact identity covariance
    sa, sb = np.array([1.0, 2.0, 0.5, 3.0]), np.array([2.0, 2.0, 1.0, 0.1])
    a, b = z * sa + 1.0, z[::-1] * sb
    expected = 4 * 1.0 + np.sum((sa - sb) ** 2)
    assert frechet_distance(a, b) == pytest.approx(expected, rel=1e-8)
    d2, parts = frechet_distance(a, b, mean_cov=True)
    assert parts["mean_term"] == pytest.approx(4.0) and d2 == pytest.approx(parts["mean_term"] + parts["trace_term"])


def test_fid_rank_deficient_is_finite_and_stable():
    # fewer samples than features: singular covariances, where the textbook sqrtm route is fragile
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(20, 100)), rng.normal(size=(30, 100))
    d = frechet_distance(a, b)
    assert np.isfinite(d) and d >= 0
    assert frechet_distance(a, a) == pytest.approx(0.0, abs=1e-6 * np.trace(np.cov(a, rowvar=False)))
    # torch tensors are accepted
    assert frechet_distance(torch.from_numpy(a), torch.from_numpy(b)) == pytest.approx(d)


@given(arrays(np.float64, (12, 3), elements=st.floats(-10, 10)), arrays(np.float64, (9, 3), elements=st.floats(-10, 10)),
       arrays(np.float64, (3,), elements=st.floats(-5, 5)))
def test_fid_properties(a, b, shift):
    d = frechet_distance(a, b)
    assert d >= 0
    assert frechet_distance(b, a) == pytest.approx(d, rel=1e-6, abs=1e-6)
    assert frechet_distance(a + shift, b + shift) == pytest.approx(d, rel=1e-6, abs=1e-6)   # translation invariant


@pytest.mark.bad_input("nn.frechet_distance")
def test_fid_bad_input():
    a = np.zeros((5, 3))
    with pytest.raises(InputError, match="feats_a"):
        frechet_distance(np.zeros(5), a)
    with pytest.raises(InputError, match="feats_a"):
        frechet_distance(np.zeros((1, 3)), a)
    with pytest.raises(InputError, match="feats_b"):
        frechet_distance(a, np.zeros((5, 4)))
    with pytest.raises(InputError, match="feats_b"):
        frechet_distance(a, np.full((5, 3), np.nan))
    with pytest.raises(InputError, match="feats_a"):
        frechet_distance(np.array([["a", "b"], ["c", "d"]]), a)
    with pytest.raises(InputError, match="feats_a"):
        frechet_distance(np.zeros((4, 0)), np.zeros((4, 0)))
    with pytest.raises(InputError, match="mean_cov"):
        frechet_distance(a, a, mean_cov=1)


# ------------------------------------------------------------------------------------------------ cached flows
@pytest.fixture
def tmp_cache(tmp_path, monkeypatch):
    from iclr26sci.nn import _pretrained_flow as pf

    monkeypatch.setenv("ICLR26SCI_CACHE", str(tmp_path))
    # a cheap quality evaluation (the defaults take tens of seconds)
    for name in ("FASHION_EVAL", "DIGITS_EVAL"):
        monkeypatch.setattr(pf, name, {"n": 40, "steps": 2, "solver": "euler", "guidance": 2.0, "seed": 1})
    return tmp_path


def _tiny_fashion(n=60, seed=0):
    from iclr26sci.nn import ImageSet

    rng = np.random.default_rng(seed)
    y = np.arange(n) % 10
    x = rng.random((n, 1, 28, 28)).astype(np.float32) * 0.2
    for k in range(10):             # class k: a bright horizontal band at row 2k + 4
        x[y == k, 0, 2 * k + 4, :] = 1.0
    return ImageSet(x, y.astype(np.int64), tuple(str(k) for k in range(10)), "tiny")


class _RowJudge:
    """A stand-in classifier for the tiny set: predicts the brightest band, features = row means."""

    def features(self, x):
        return np.asarray(x, np.float64).mean(axis=(1, 3))

    def predict(self, x):
        rows = self.features(x)[:, 4:24:2]
        return rows.argmax(1)


def test_digits_flow_builds_caches_and_samples(tmp_cache):
    from iclr26sci.nn import FlowMatching, digits_flow, ode_sample

    fm = digits_flow(rng=0, epochs=2, progress=False)
    assert isinstance(fm, FlowMatching) and fm.event_shape_ == (64,) and fm.n_classes_ == 10
    q = fm.sample_quality_
    for key in ("sample_accuracy", "sample_accuracy_se", "frechet_distance", "real_accuracy", "frechet_floor"):
        assert np.isfinite(q[key]), key
    assert 0 <= q["sample_accuracy"] <= 1 and q["real_accuracy"] > 0.9       # the judge itself is good
    assert fm.cache_meta_["cached"] is False and hasattr(fm, "fit_result_")
    again = digits_flow(rng=0, epochs=2, progress=False)
    assert again.cache_meta_["cached"] is True and again.sample_quality_ == q
    for a, b in zip(fm.velocity_net.parameters(), again.velocity_net.parameters()):
        assert torch.equal(a, b)
    x = ode_sample(again, n=10, cond=list(range(10)), steps=3, rng=0).x
    assert x.shape == (10, 64) and torch.isfinite(x).all()
    other = digits_flow(rng=1, epochs=2, progress=False, evaluate=False)    # another seed: another entry
    assert other.cache_meta_["key"] != fm.cache_meta_["key"] and "sample_accuracy" not in other.sample_quality_


def test_fashion_flow_on_a_given_imageset_with_custom_judge(tmp_cache):
    from iclr26sci.nn import fashion_flow

    train, test = _tiny_fashion(60, 0), _tiny_fashion(40, 1)
    fm = fashion_flow(rng=0, train=train, test=test, n_train=50, epochs=1, classifier=_RowJudge(), progress=False)
    assert fm.event_shape_ == (1, 28, 28) and type(fm.velocity_net).__name__ == "UNetVelocity"
    q = fm.sample_quality_
    assert q["real_accuracy"] == 1.0 and np.isfinite(q["frechet_distance"]) and q["n_eval"] == 40
    assert q["frechet_distance"] >= 0 and q["frechet_floor"] >= 0
    assert fm.cache_meta_["settings"]["judge"] == "custom"
    again = fashion_flow(rng=0, train=train, test=test, n_train=50, epochs=1, classifier=_RowJudge(), progress=False)
    assert again.cache_meta_["cached"] is True
    changed = _tiny_fashion(60, 2)       # other images: another cache entry
    fm2 = fashion_flow(rng=0, train=changed, test=test, n_train=50, epochs=1, evaluate=False, progress=False)
    assert fm2.cache_meta_["key"] != fm.cache_meta_["key"]


@pytest.mark.bad_input("nn.digits_flow")
@pytest.mark.parametrize("kwargs, arg", [
    (dict(rng=-1), "rng"), (dict(rng=1.5), "rng"), (dict(rng=None), "rng"), (dict(epochs=0), "epochs"),
    (dict(evaluate="yes"), "evaluate"), (dict(rebuild=1), "rebuild"), (dict(progress=None), "progress"),
])
def test_digits_flow_bad_input(kwargs, arg, tmp_cache):
    from iclr26sci.nn import digits_flow

    with pytest.raises(InputError, match=arg):
        digits_flow(**kwargs)
    assert not (tmp_cache / "models").exists()          # refused before any work or file write


@pytest.mark.bad_input("nn.fashion_flow")
@pytest.mark.parametrize("kwargs, arg", [
    (dict(rng=-1), "rng"), (dict(rng=True), "rng"), (dict(epochs=0), "epochs"), (dict(n_train=5), "n_train"),
    (dict(n_train=61), "n_train"), (dict(train=np.zeros((10, 1, 28, 28))), "train"),
    (dict(test=[1, 2]), "test"), (dict(classifier=object()), "classifier"), (dict(evaluate=0), "evaluate"),
])
def test_fashion_flow_bad_input(kwargs, arg, tmp_cache):
    from iclr26sci.nn import ImageSet, fashion_flow

    kwargs.setdefault("train", _tiny_fashion(60))
    with pytest.raises(InputError, match=arg):
        fashion_flow(**kwargs)
    small = ImageSet(np.zeros((4, 1, 8, 8), np.float32), np.arange(4) % 2, ("a", "b"), "small")
    with pytest.raises(InputError, match="train"):
        fashion_flow(train=small)
    assert not (tmp_cache / "models").exists()


# ------------------------------------------------------------------------------------------------ validation logic
def _judged(samples, labels, real, gauss, seed=0):
    from validation.nn_generative import _judge_samples

    j = _RowJudge()
    return _judge_samples("toy", samples, labels, j.predict, j.features, real.images, real.labels, real.images,
                          _tiny_fashion(200, 9).images, gauss, np.random.default_rng(seed))


def test_validation_criteria_pass_for_real_images_and_fail_for_broken_generators():
    real, fresh = _tiny_fashion(200, 3), _tiny_fashion(200, 4)
    labels = fresh.labels
    noise = np.random.default_rng(0).random((200, 1, 28, 28)).astype(np.float32)
    # a "generator" that returns fresh real images passes every criterion against pure-noise "Gaussians"
    crit, table, extra = _judged(fresh.images, labels, real, noise)
    assert all(c.passed for c in crit), [(c.name, c.statistic) for c in crit]
    # a generator that ignores its label (images of the next class) fails the accuracy criterion
    wrong = fresh.images[np.argsort((labels + 1) % 10, kind="stable")]
    crit, _, _ = _judged(wrong, np.sort(labels), real, noise)
    assert not crit[0].passed
    # a generator equal to the "Gaussian" reference fails the Frechet criterion (gap 0)
    crit, _, _ = _judged(noise, labels, real, noise)
    assert not crit[1].passed
