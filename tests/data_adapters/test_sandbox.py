"""The sandboxed runner: HumanEval's canonical solutions pass, wrong code fails, loops time out, the network
is unreachable, writes stay in the temporary folder, and bad input is refused before anything runs."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import pytest

from data_adapters import sandbox as S
from data_adapters.llm_tasks import humaneval_problem, load_humaneval
from iclr26sci.core import InputError

ISOLATIONS = ["guard"] + (["netns"] if S.network_isolation() == "netns" else [])


def test_ten_canonical_solutions_pass_and_wrong_ones_fail():
    probs = load_humaneval()[:10]
    res = S.run_humaneval_batch(probs, [p.canonical_solution for p in probs], n_workers=2, progress=False)
    assert [r.status for r in res] == ["passed"] * 10, [r.summary() for r in res]
    # a completion that returns a constant of the right type fails the asserts of every one of these problems
    wrong = S.run_humaneval_batch(probs, ["    return None\n"] * 10, n_workers=2, progress=False)
    assert not any(r.passed for r in wrong)
    assert {r.status for r in wrong} <= {"failed", "error"} and "failed" in {r.status for r in wrong}


@pytest.mark.slow
def test_all_164_canonical_solutions_pass():
    probs = load_humaneval()
    res = S.run_humaneval_batch(probs, [p.canonical_solution for p in probs], progress=False)
    failed = [(p.task_id, r.summary()) for p, r in zip(probs, res) if not r.passed]
    assert not failed


def test_statuses_and_result_api():
    p = humaneval_problem("HumanEval/2")                      # truncate_number
    r = S.run_humaneval(p, "    return number - int(number)\n")
    assert r.passed and r.status == "passed" and r.returncode == 0
    assert "passed" in r.summary() and len(repr(r)) < 60 and r.to_dict()["status"] == "passed"
    r = S.run_humaneval(p, "    return number\n")
    assert r.status == "failed" and "AssertionError" in r.stderr
    r = S.run_humaneval(p, "    return undefined_name\n")
    assert r.status == "error" and "NameError" in r.stderr
    assert S.run_python("def f(:\n    pass").status == "error"


def test_infinite_loop_times_out_within_the_limit():
    p = humaneval_problem(0)
    r = S.run_humaneval(p, "    while True:\n        pass\n", timeout=1.0)
    assert r.status == "timeout" and not r.passed and r.returncode is None
    assert 1.0 <= r.seconds < 4.0


def test_early_exit_cannot_fake_a_pass():
    for code in ("import sys\nsys.exit(0)\nassert False", "import os\nos._exit(0)\nassert False"):
        r = S.run_python(code)
        assert r.status == "error" and not r.passed, r.summary()


def test_isolated_interpreter_and_minimal_environment():
    r = S.run_python("import os, sys\nprint(sys.flags.isolated, sys.flags.dont_write_bytecode, "
                     "os.environ.get('HOME') == os.getcwd(), 'PYTHONPATH' in os.environ)")
    assert r.passed and r.stdout.split() == ["1", "1", "True", "False"], r.stdout


def test_memory_limit_turns_a_huge_allocation_into_an_error():
    r = S.run_python("x = bytearray(4 * 1024 ** 3)", memory_mb=256)
    assert r.status == "error" and "MemoryError" in r.stderr


def test_processes_cannot_be_started():
    for code in ("import os\nos.system('true')", "import subprocess\nsubprocess.run(['true'])",
                 "import os\nos.fork()", "import multiprocessing as mp\np = mp.Process(target=print)\np.start()"):
        r = S.run_python(code)
        assert r.status == "error" and "PermissionError" in r.stderr, (code, r.summary())


@pytest.fixture
def server():
    """A TCP server on this host that counts connections."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    hits, stop = [], threading.Event()

    def loop():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                hits.append(1)
                conn.close()
            except OSError:
                pass

    th = threading.Thread(target=loop, daemon=True)
    th.start()
    yield srv.getsockname()[1], hits
    stop.set()
    th.join()
    srv.close()


CONNECT = "import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\ns.close()"


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_network_is_unreachable(server, isolation):
    port, hits = server
    # control: an ordinary subprocess reaches the server, so the check below can fail
    subprocess.run([sys.executable, "-c", CONNECT.format(port=port)], check=True, timeout=20)
    assert len(hits) == 1
    r = S.run_python(CONNECT.format(port=port), isolation=isolation)
    assert r.status == "error" and not r.passed and r.isolation == isolation
    assert len(hits) == 1                                   # the sandboxed attempt never arrived
    # the low-level module is stubbed too
    r = S.run_python("import _socket\n_socket.socket()", isolation=isolation)
    assert r.status == "error" and "PermissionError" in r.stderr


@pytest.mark.skipif(S.network_isolation() != "netns", reason="no network namespaces on this machine")
def test_network_namespace_alone_blocks_connections(server):
    """The kernel layer without the Python guard: a plain interpreter in the namespace cannot connect."""
    port, hits = server
    out = subprocess.run([*S._netns_prefix(), sys.executable, "-c", CONNECT.format(port=port)],
                         capture_output=True, text=True, timeout=20)
    assert out.returncode != 0 and not hits, out.stderr


def test_writes_stay_inside_the_temporary_folder(tmp_path):
    inside = S.run_python("import os\nopen('note.txt', 'w').write('x')\nos.makedirs('a/b')\n"
                          "print(os.path.abspath('note.txt'))")
    assert inside.passed, inside.summary()
    written = inside.stdout.strip()
    assert os.path.basename(written) == "note.txt" and not os.path.exists(written)    # folder removed
    assert not os.path.exists(os.path.dirname(written))
    target = tmp_path / "outside.txt"
    for code in (f"open({str(target)!r}, 'w').write('x')", f"import pathlib\npathlib.Path({str(target)!r}).write_text('x')",
                 f"import os\nos.open({str(target)!r}, os.O_CREAT | os.O_WRONLY)",
                 f"import shutil\nshutil.copy(__file__ if '__file__' in dir() else '/etc/hostname', {str(target)!r})"):
        r = S.run_python(code)
        assert r.status == "error" and "PermissionError" in r.stderr, (code, r.summary())
    assert not target.exists()
    keep = tmp_path / "keep.txt"
    keep.write_text("data")
    r = S.run_python(f"import os\nos.remove({str(keep)!r})")
    assert r.status == "error" and keep.read_text() == "data"
    # reading outside stays possible (imports need it)
    assert S.run_python(f"assert open({str(keep)!r}).read() == 'data'").passed


def test_run_many_keeps_order():
    progs = ["assert 1 == 1", "assert 1 == 2", "raise ValueError", "while True: pass", "print('hi')"]
    res = S.run_many(progs, timeout=1.0, n_workers=3, progress=False)
    assert [r.status for r in res] == ["passed", "failed", "error", "timeout", "passed"]
    assert res[4].stdout.strip() == "hi"
    assert S.run_many([], progress=False) == []


@pytest.mark.bad_input("data_adapters.run_python", "data_adapters.run_many", "data_adapters.run_humaneval",
                       "data_adapters.run_humaneval_batch")
def test_bad_input_is_refused_before_running():
    p = humaneval_problem(0)
    with pytest.raises(InputError, match="`code`"):
        S.run_python(123)
    with pytest.raises(InputError, match="`code`"):
        S.run_python(b"print(1)")
    with pytest.raises(InputError, match="`test`"):
        S.run_python("x = 1", test=["assert x"])
    for t in (-1, 0, float("nan"), float("inf"), True, "5"):
        with pytest.raises(InputError, match="`timeout`"):
            S.run_python("x = 1", timeout=t)
    with pytest.raises(InputError, match="`memory_mb`"):
        S.run_python("x = 1", memory_mb=0)
    with pytest.raises(InputError, match="`memory_mb`"):
        S.run_python("x = 1", memory_mb=1.5)
    with pytest.raises(InputError, match="`isolation`"):
        S.run_python("x = 1", isolation="docker")
    with pytest.raises(InputError, match="`programs`"):
        S.run_many("assert True")
    with pytest.raises(InputError, match="`programs`"):
        S.run_many(["assert True", 3])
    with pytest.raises(InputError, match="`n_workers`"):
        S.run_many(["assert True"], n_workers=0)
    with pytest.raises(InputError, match="`progress`"):
        S.run_many(["assert True"], progress="no")
    with pytest.raises(InputError, match="`timeout`"):
        S.run_many(["assert True"], timeout=-2)
    with pytest.raises(InputError, match="`problem`"):
        S.run_humaneval({"prompt": "def f():"}, "    return 1")
    with pytest.raises(InputError, match="`completion`"):
        S.run_humaneval(p, None)
    with pytest.raises(InputError, match="`timeout`"):
        S.run_humaneval(p, p.canonical_solution, timeout=-1)
    with pytest.raises(InputError, match="`completions`"):
        S.run_humaneval_batch([p, p], ["    return True\n"])
    with pytest.raises(InputError, match="`completions`"):
        S.run_humaneval_batch([p], "    return True\n")
    with pytest.raises(InputError, match="`problems`"):
        S.run_humaneval_batch("HumanEval/0", ["x"])


BAD_INPUT_EXEMPT = {
    "data_adapters.network_isolation": "takes no arguments (probes `unshare -n` once)",
    "data_adapters.SANDBOX_STATUSES": "a constant tuple of status names",
    "data_adapters.SandboxResult": "a result record the runner returns (users do not build it)",
}
