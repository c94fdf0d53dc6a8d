import numpy as np
import pytest

from iclr26sci.core import (
    InputError,
    ObservationalData,
    check_array,
    check_consistent_length,
    check_in_range,
    check_option,
    check_positive_int,
    check_probability_vector,
)


def test_input_error_message_names_argument_problem_expected():
    e = InputError("gamma", "got 0.5", "a number >= 1")
    assert isinstance(e, ValueError)
    assert "gamma" in str(e) and "0.5" in str(e) and ">= 1" in str(e)
    import pickle

    assert str(pickle.loads(pickle.dumps(e))) == str(e)


def test_check_array():
    assert check_array([[1, 2]], "X", ndim=2).dtype == float
    with pytest.raises(InputError, match="`X`.*dimension"):
        check_array([1, 2], "X", ndim=2)
    with pytest.raises(InputError, match="NaN"):
        check_array([1.0, np.nan], "Y")
    with pytest.raises(InputError, match="shape"):
        check_array(np.zeros((2, 3)), "M", shape=(2, 2))
    with pytest.raises(InputError, match="non-integer"):
        check_array([0, 1.5], "A", dtype=int)
    with pytest.raises(InputError, match="negative"):
        check_array([-1.0], "w", nonnegative=True)
    with pytest.raises(InputError, match="ragged"):
        check_array([[1], [1, 2]], "R")
    with pytest.raises(InputError, match="numeric"):
        check_array(["a", "b"], "S")
    assert check_array([1.0, 2.0], "A", dtype=int).dtype == np.int64


def test_check_probability_vector():
    np.testing.assert_allclose(check_probability_vector([0.2, 0.8], "p"), [0.2, 0.8])
    check_probability_vector([[0.5, 0.5], [1, 0]], "P")
    with pytest.raises(InputError, match="sum to 1"):
        check_probability_vector([0.2, 0.7], "p")
    with pytest.raises(InputError, match="negative"):
        check_probability_vector([-0.2, 1.2], "p")


def test_scalar_validators():
    assert check_in_range(1.0, "gamma", 1.0) == 1.0
    with pytest.raises(InputError, match="gamma"):
        check_in_range(0.5, "gamma", 1.0)
    with pytest.raises(InputError, match=r"\(0"):
        check_in_range(0.0, "eps", 0.0, low_open=True)
    with pytest.raises(InputError, match="real number"):
        check_in_range("1", "eps")
    with pytest.raises(InputError, match="finite"):
        check_in_range(float("nan"), "eps")
    assert check_positive_int(3, "k") == 3
    with pytest.raises(InputError, match="k"):
        check_positive_int(0, "k")
    with pytest.raises(InputError, match="integer"):
        check_positive_int(2.0, "k")
    with pytest.raises(InputError, match="'a', 'b'"):
        check_option("c", "mode", ["a", "b"])
    with pytest.raises(InputError, match="inconsistent"):
        check_consistent_length(X=np.zeros(3), Y=np.zeros(4))


def test_observational_data_validates():
    d = ObservationalData(np.arange(6.0), [0, 1, 2, 0, 1, 2], np.ones(6))
    assert d.X.shape == (6, 1) and d.n_arms == 3 and d.n == 6
    assert d.subset([0, 1]).n == 2
    with pytest.raises(InputError, match="inconsistent"):
        ObservationalData(np.zeros((3, 2)), [0, 1], np.zeros(3))
    with pytest.raises(InputError, match="`A`"):
        ObservationalData(np.zeros((2, 2)), [0, -1], np.zeros(2))
    with pytest.raises(InputError, match="`Y`"):
        ObservationalData(np.zeros((2, 2)), [0, 1], [0, np.nan])
    with pytest.raises(InputError, match="feature_names"):
        ObservationalData(np.zeros((2, 2)), [0, 1], [0, 1], feature_names=["a"])
