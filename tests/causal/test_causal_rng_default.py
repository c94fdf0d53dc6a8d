"""policy_improvement's default seed makes its certificate reproducible (issue 37)."""
import inspect

from iclr26sci.causal import policy_improvement, simulate_v1


def test_policy_improvement_default_rng_is_reproducible():
    assert inspect.signature(policy_improvement).parameters["rng"].default == 0
    data, _ = simulate_v1(300, gamma=2.0, rng=1)
    a = policy_improvement(data, 1, 0, gamma=2.0, cv=2)
    b = policy_improvement(data, 1, 0, gamma=2.0, cv=2)
    c = policy_improvement(data, 1, 0, gamma=2.0, cv=2, rng=0)
    assert a.bound.value == b.bound.value == c.bound.value and a.certified == b.certified
