"""A scientist's own DataFrame goes in: bool columns are numeric, string or categorical treatments are arms
reported by name, fit(X, A, Y) and scikit-learn's fit(X, y=[treatment, outcome]) both work, and
cross_val_score / Pipeline run on SharpPolicyLearner."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from iclr26sci.causal import KallusZhouLearner, SharpPolicyLearner, simulate_v1
from iclr26sci.core import InputError, ObservationalData


@pytest.fixture(scope="module")
def frame():
    d, _ = simulate_v1(300, gamma=2.0, rng=0)
    df = pd.DataFrame({"x": d.X[:, 0], "flag": d.X[:, 0] > 0,
                       "treat": np.where(d.A == 1, "drug", "placebo"), "y": d.Y})
    return d, df


def test_fit_x_a_y_with_strings_and_bools_equals_the_integer_fit(frame):
    d, df = frame
    X = df[["x", "flag"]]
    m = SharpPolicyLearner(gamma=2.0, cv=2, rng=0).fit(X, df["treat"], df["y"])
    codes = (df["treat"] == "placebo").to_numpy().astype(int)        # sorted labels: drug -> 0, placebo -> 1
    ref = SharpPolicyLearner(gamma=2.0, cv=2, rng=0).fit((np.c_[d.X[:, 0], d.X[:, 0] > 0], codes, d.Y))
    assert m.classes_.tolist() == ["drug", "placebo"] and m.feature_names_in_.tolist() == ["x", "flag"]
    np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(np.c_[d.X[:, 0], d.X[:, 0] > 0]), atol=1e-12)
    np.testing.assert_array_equal(m.predict(X), np.array(["drug", "placebo"], dtype=object)[ref.predict(
        np.c_[d.X[:, 0], d.X[:, 0] > 0])])


def test_categorical_treatment_keeps_category_order(frame):
    _, df = frame
    cat = pd.Categorical(df["treat"], categories=["placebo", "drug"])
    m = SharpPolicyLearner(gamma=2.0, cv=2, rng=0).fit(df[["x"]], pd.Series(cat), df["y"])
    assert m.classes_.tolist() == ["placebo", "drug"]


def test_sklearn_two_column_target_cross_val_and_pipeline(frame):
    d, df = frame
    s = cross_val_score(SharpPolicyLearner(gamma=2.0, cv=2, rng=0), df[["x"]], df[["treat", "y"]], cv=3)
    assert s.shape == (3,) and np.all(np.isfinite(s))
    p = cross_val_score(make_pipeline(StandardScaler(), SharpPolicyLearner(gamma=2.0, cv=2, rng=0)),
                        d.X, np.c_[d.A, d.Y], cv=3)
    assert np.all(np.isfinite(p))


def test_kallus_zhou_takes_the_same_forms(frame):
    _, df = frame
    m = KallusZhouLearner(cv=2, n_iter=5, n_restarts=0, rng=0).fit(df[["x"]], df["treat"], df["y"])
    assert m.predict_proba(df[["x"]]).shape == (len(df), 2)


def test_bad_tabular_input_is_named(frame):
    _, df = frame
    with pytest.raises(InputError, match="column 'site'.*get_dummies"):
        SharpPolicyLearner(cv=2).fit(df[["x"]].assign(site="a"), df["treat"], df["y"])
    with pytest.raises(InputError, match="`Y`: is missing"):
        SharpPolicyLearner(cv=2).fit(df[["x"]], df["treat"])
    with pytest.raises(InputError, match="missing treatment"):
        ObservationalData(df[["x"]], df["treat"].where(df.index > 0, None), df["y"])
