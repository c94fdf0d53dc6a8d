"""Import cost of every sub-package: CPU and wall seconds of ``import <package>`` after ``import numpy``.

Median of three fresh interpreters each; the goal is under 1 s of CPU per package. Prints the load average
and thread count beside the figures (tests assert only *what* is imported, see tests/test_imports.py).

    .venv/bin/python benchmarks/bench_imports.py
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from test_imports import PACKAGES  # noqa: E402

PROBE = """
import json, time
w0, c0 = time.perf_counter(), time.process_time()
import numpy
w1, c1 = time.perf_counter(), time.process_time()
import {mod}
w2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({{"numpy_cpu": c1 - c0, "wall": w2 - w1, "cpu": c2 - c1}}))
"""
GOAL_CPU_S = 1.0


def main() -> int:
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores, OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS', 'unset')}")
    print(f"{'package':24s} {'cpu s':>7s} {'wall s':>7s} {'numpy cpu':>9s} {'goal':>6s}")
    worst = 0.0
    for mod in PACKAGES:
        runs = []
        for _ in range(3):
            r = subprocess.run([sys.executable, "-c", PROBE.format(mod=mod)], capture_output=True, text=True,
                               check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
            runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
        cpu = statistics.median(r["cpu"] for r in runs)
        wall = statistics.median(r["wall"] for r in runs)
        npc = statistics.median(r["numpy_cpu"] for r in runs)
        worst = max(worst, cpu)
        print(f"{mod:24s} {cpu:7.3f} {wall:7.3f} {npc:9.3f} {'ok' if cpu < GOAL_CPU_S else 'SLOW':>6s}")
    print(f"slowest import: {worst:.3f} CPU s (goal < {GOAL_CPU_S} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
