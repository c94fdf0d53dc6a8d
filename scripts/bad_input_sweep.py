"""Tally of the bad-input sweep: every ``tests/<pkg>/bad_input_cases.py`` CASES list, classified.

    .venv/bin/python scripts/bad_input_sweep.py [PKG ...] [--show WEAK,BAD]
"""
from __future__ import annotations

import argparse
import collections
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pkgs", nargs="*", help="sub-packages to sweep (default: every one with a cases file)")
    ap.add_argument("--show", default="WEAK,BAD", help="verdicts whose cases are listed")
    args = ap.parse_args(argv)
    from bad_input_sweep import case_files, classify, load_cases

    files = {f.parent.name: f for f in case_files()}
    pkgs = args.pkgs or list(files)
    tally: dict[str, collections.Counter] = {}
    shown = set(args.show.split(","))
    for pkg in pkgs:
        c = tally.setdefault(pkg, collections.Counter())
        for case in load_cases(files[pkg]):
            verdict, msg = classify(case)
            c[verdict] += 1
            if verdict in shown:
                print(f"{verdict:5s} {case.id} {case.entry} ({case.what}): {msg[:240]}")
    total = collections.Counter()
    print(f"\n{'package':16s} {'GOOD':>5s} {'WEAK':>5s} {'BAD':>5s}")
    for pkg, c in tally.items():
        total.update(c)
        print(f"{pkg:16s} {c['GOOD']:5d} {c['WEAK']:5d} {c['BAD']:5d}")
    print(f"{'total':16s} {total['GOOD']:5d} {total['WEAK']:5d} {total['BAD']:5d}")
    return 0 if total["WEAK"] == 0 and total["BAD"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
