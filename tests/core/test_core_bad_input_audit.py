"""Re-run of the core rows of ../shared/audits/bad-input-cases.md, one parametrised case per row id.

Each row runs the audit's exact call and asserts an ``InputError`` naming the right argument
(or, where the call is legitimate, the right value, with the reason beside it).
"""
import numpy as np
import pytest

from iclr26sci.core import (
    Estimate,
    InputError,
    ObservationalData,
    check_array,
    check_consistent_length,
    check_in_range,
    progress,
    torch_generator,
)

nan, inf = float("nan"), float("inf")


def _namespace():
    return {"np": np, "nan": nan, "inf": inf, "check_array": check_array, "Estimate": Estimate,
            "ObservationalData": ObservationalData, "check_consistent_length": check_consistent_length,
            "torch_generator": torch_generator, "progress": progress, "check_in_range": check_in_range,
            "est": Estimate(1.0, 0.1, name="theta", n=100),
            "od": ObservationalData(np.arange(10.0).reshape(5, 2), [0, 1, 0, 1, 1], np.arange(5.0))}


# id -> (exact call, argument the InputError must name)
ROWS = {
    "core.003": ("check_array([1e30], 'x', dtype=int)", "x"),
    "core.019": ("check_in_range(np.array(0.5), 'v', 0, 1)", "v"),
    "core.004": ("check_array([2.0**63], 'x', dtype=int)", "x"),
    "core.005": ("check_array(np.array([2**64 - 1], dtype=np.uint64), 'x', dtype=int)", "x"),
    "core.007": ("check_array([1 + 2j], 'x')", "x"),
    "core.051": ("Estimate(1.0, -1.0)", "stderr"),
    "core.052": ("Estimate(nan, 1.0)", "value"),
    "core.053": ("Estimate(inf, 1.0)", "value"),
    "core.056": ("est.lower_bound(2.0)", "alpha"),
    "core.057": ("est.lower_bound(0.0)", "alpha"),
    "core.058": ("est.upper_bound(-1.0)", "alpha"),
    "core.061": ("Estimate(1.0, 0.1, n=-5)", "n"),
    "core.071": ("ObservationalData([[1.0], [2.0]], [0, 10**12], [1.0, 2.0]).n_arms", "A"),
    "core.026": ("check_consistent_length(a=3, b=[1])", "a"),
    "core.038": ("torch_generator(0, device='nope')", "device"),
    "core.049": ("list(progress(5))", "iterable"),
    "core.050": ("Estimate('abc')", "value"),
    "core.059": ("est.upper_bound('x')", "alpha"),
    "core.075": ("od.subset([0, 99])", "idx"),
    "core.076": ("od.subset([])", "idx"),
    "core.077": ("od.subset([0.5, 1.5])", "idx"),
}


@pytest.mark.parametrize("row", sorted(ROWS))
def test_audit_row(row):
    call, arg = ROWS[row]
    with pytest.raises(InputError, match=f"`{arg}`"):
        eval(call, _namespace())


def test_audit_rows_cover_every_core_id_in_the_audit():
    import pathlib
    import re

    audit = pathlib.Path("/work/shared/audits/bad-input-cases.md")
    if not audit.exists():
        pytest.skip("the audit file is not on this machine")
    ids = set(re.findall(r"^\| (core\.\d+) \|", audit.read_text(), flags=re.M))
    assert ids <= set(ROWS), sorted(ids - set(ROWS))
