"""The kernels estimators predict and score themselves, so ``cross_val_score`` and ``Pipeline`` work."""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.kernels import PixelRBFGP


def _neuron(seed=0, n=60, d=9):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    return X, g.poisson(np.exp(0.8 * X[:, 0] + 0.5))


def test_pixel_gp_cross_val_score_and_pipeline():
    X, y = _neuron()
    s = cross_val_score(PixelRBFGP(), X, y, cv=3)
    assert s.shape == (3,) and np.all(np.isfinite(s)) and s.mean() > 0  # a real signal is found
    pipe = make_pipeline(StandardScaler(), PixelRBFGP()).fit(X[:40], y[:40])
    assert pipe.predict(X[40:]).shape == (20,)
    assert np.isfinite(pipe.score(X[40:], y[40:]))


def test_score_is_r2_of_the_mean_on_the_transformed_scale():
    X, y = _neuron(1)
    est = PixelRBFGP()
    est.fit(X[:40], y[:40])
    z, mu = np.sqrt(y[40:]), est.predict(X[40:])
    assert est.score(X[40:], y[40:]) == pytest.approx(1 - np.sum((z - mu) ** 2) / np.sum((z - z.mean()) ** 2))
    mean, std = est.predict(X[40:], return_std=True)
    assert np.all(std > 0) and np.allclose(mean, mu)


def test_noise_neuron_scores_near_zero_not_high():
    # broken variant this guards against: a score computed on the training trials would look good on noise
    g = np.random.default_rng(2)
    X, y = g.standard_normal((90, 9)), g.poisson(3.0, size=90)
    assert cross_val_score(PixelRBFGP(), X, y, cv=3).mean() < 0.15


def test_predict_and_score_refuse_bad_states():
    X, y = _neuron()
    with pytest.raises(NotFittedError):
        PixelRBFGP().predict(X)
    est = PixelRBFGP()
    est.fit(X, y)
    with pytest.raises(InputError, match="constant"):
        est.score(X[:5], np.full(5, 3))
    with pytest.raises(InputError, match="responses"):
        est.score(X[:5], y[:4])
    est.fit(X, np.stack([y, y[::-1]]))
    with pytest.raises(InputError, match="several neurons"):
        est.score(X[:10], y[:10])


def test_meta_trained_kernel_keeps_its_features_through_clone(tiny_kernels):
    patches, _, tasks, tik = tiny_kernels(6)
    c = clone(tik)
    assert c.feature_extractor_ is tik.feature_extractor_ and not hasattr(c, "neuron_gp_")
    assert c.get_params() == tik.get_params()
    t = tasks[0]
    X = np.concatenate([t.X_support, t.X_query])
    y = np.concatenate([t.y_support, t.y_query])
    s = cross_val_score(tik, X, y, cv=2)
    assert s.shape == (2,) and np.all(np.isfinite(s))
