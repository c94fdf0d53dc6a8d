import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from iclr26sci.core import Estimate, InputError, as_generator, seed_sequence, spawn, torch_generator


def test_as_generator_reproducible_and_passthrough():
    assert as_generator(3).random() == as_generator(3).random()
    g = np.random.default_rng(1)
    assert as_generator(g) is g
    assert isinstance(as_generator(None), np.random.Generator)
    ss = np.random.SeedSequence(5)
    assert as_generator(ss).random() == as_generator(np.random.SeedSequence(5)).random()


@pytest.mark.parametrize("bad", [-1, 1.5, "seed", True, [1, 2]])
def test_as_generator_rejects_bad_seed(bad):
    with pytest.raises(InputError, match="rng"):
        as_generator(bad)


def test_spawn_children_independent_and_deterministic():
    a = [as_generator(s).random() for s in spawn(7, 4)]
    b = [as_generator(s).random() for s in spawn(7, 4)]
    assert a == b
    assert len(set(a)) == 4
    with pytest.raises(InputError, match="n"):
        spawn(0, -1)


def test_spawn_from_generator_advances_and_differs():
    g = np.random.default_rng(0)
    c1 = spawn(g, 2)
    c2 = spawn(g, 2)
    assert as_generator(c1[0]).random() != as_generator(c2[0]).random()


def test_torch_generator_deterministic():
    t1 = torch.rand(3, generator=torch_generator(11))
    t2 = torch.rand(3, generator=torch_generator(11))
    assert torch.equal(t1, t2)
    assert not torch.equal(t1, torch.rand(3, generator=torch_generator(12)))
    assert torch.equal(torch.rand(2, generator=torch_generator(np.random.default_rng(3))),
                       torch.rand(2, generator=torch_generator(np.random.default_rng(3))))


def test_seed_sequence_int_roundtrip():
    assert seed_sequence(9).entropy == 9


def test_estimate_interval_and_rendering():
    e = Estimate(1.0, 0.5, name="value", n=100, citation="X et al.")
    lo, hi = e.conf_int(0.05)
    assert lo == pytest.approx(1 - 1.959964 * 0.5, rel=1e-6)
    assert hi == pytest.approx(1 + 1.959964 * 0.5, rel=1e-6)
    assert e.lower_bound(0.05) == pytest.approx(1 - 1.6448536 * 0.5, rel=1e-7)
    assert "value" in e.summary() and "n=100" in str(e)
    assert "<table>" in e._repr_html_() and "X et al." in e._repr_html_()
    d = e.to_dict()
    assert d["value"] == 1.0 and len(d["ci95"]) == 2
    assert "| value |" in e.to_markdown()
    with pytest.raises(InputError, match="alpha"):
        e.conf_int(1.5)
    with pytest.raises(Exception):
        e.value = 2.0  # frozen


@given(st.floats(-1e6, 1e6), st.floats(0, 1e3), st.floats(0.001, 0.5))
def test_estimate_interval_contains_value_and_shrinks_with_alpha(v, se, alpha):
    e = Estimate(v, se)
    lo, hi = e.conf_int(alpha)
    assert lo <= v <= hi
    lo2, hi2 = e.conf_int(min(0.9, alpha * 2))
    assert hi2 - lo2 <= hi - lo + 1e-9
