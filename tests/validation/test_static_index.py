"""`iclr26sci list` reads the checks from the source without importing the methods; what it reads must be what
the imported registry holds (keys, kinds, slowness, budgets and texts), and it must import no method."""
from __future__ import annotations

import subprocess
import sys

from validation.registry import load_checks
from validation.static_index import static_checks


def test_static_index_equals_the_registry():
    static = {c.key: c for c in static_checks()}
    loaded = {s.key: s for s in load_checks(None)}
    assert set(static) == set(loaded)
    for k, s in loaded.items():
        c = static[k]
        assert (c.kind, c.slow, c.budget) == (s.kind, s.slow, s.budget), k
        assert c.text == " ".join(s.guarantee.split()), k


def test_list_imports_no_method_and_filters():
    code = ("import sys; from iclr26sci.cli import main; rc = main(['list', 'causal', '--claims']); "
            "heavy = [m for m in ('torch', 'open3d', 'iclr26sci.causal', 'validation.causal') if m in sys.modules]; "
            "print('HEAVY', heavy); sys.exit(rc)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "HEAVY []" in res.stdout
    assert "causal" in res.stdout and "c1_sharp_learner_beats_dr_regret" in res.stdout and "games" not in res.stdout


def test_list_refuses_an_unknown_method():
    from iclr26sci.cli import main

    assert main(["list", "nope"]) == 2
    assert main(["list", "causal.no_such_check"]) == 2


def test_version_flag(capsys):
    import pytest

    from iclr26sci import __version__
    from iclr26sci.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"iclr26sci {__version__}"
