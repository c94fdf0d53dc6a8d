"""The ``iclr26sci`` command: ``validate``, ``list``, ``data list``."""
from __future__ import annotations

import argparse
import sys
import time

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="iclr26sci", description="ICLR 2026 methods as validated scientific tools")
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="run the validation checks and write the report")
    v.add_argument("--only", nargs="+", metavar="METHOD", help="methods to validate (default: all)")
    v.add_argument("--profile", choices=["quick", "full"], default="quick")
    v.add_argument("--executor", choices=["local", "dask"], default="local")
    v.add_argument("--scheduler", default=None, help="dask scheduler address (with --executor dask)")
    v.add_argument("--workers", type=int, default=None, help="LocalCluster workers (with --executor dask)")
    v.add_argument("--seed", type=int, default=0, help="master seed (each check derives its own)")
    v.add_argument("--out", default="reports/validation", help="output folder")
    sub.add_parser("list", help="list methods and their checks")
    d = sub.add_parser("data", help="data adapters")
    d.add_argument("action", choices=["list"])
    return p


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "validate":
        return _validate(args)
    if args.command == "list":
        from validation.registry import METHODS, load_checks

        specs = load_checks(None)
        for m, (_, title) in METHODS.items():
            mine = [s for s in specs if s.method == m]
            print(f"{m}  ({len(mine)} checks)  {title}")
            for s in mine:
                print(f"    {s.name}{' [slow]' if s.slow else ''}: {s.guarantee}")
        return 0
    if args.command == "data":
        from data_adapters import ADAPTERS

        for name, info in ADAPTERS.items():
            print(f"load_{name}  -> {info.returns}\n    {info.description}  [{info.source}]")
        return 0
    return 2  # pragma: no cover


def _validate(args) -> int:
    from iclr26sci.core import InputError
    from validation.registry import METHODS

    if args.scheduler and args.executor != "dask":
        print("error: --scheduler needs --executor dask", file=sys.stderr)
        return 2
    if args.only:
        bad = [m for m in args.only if m not in METHODS]
        if bad:
            print(f"error: unknown method(s) {bad}; choose from {list(METHODS)}", file=sys.stderr)
            return 2
    from validation.report import environment, run_validation, write_report

    t0 = time.perf_counter()
    try:
        records = run_validation(args.only, args.profile, args.seed, args.executor, args.scheduler, args.workers)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    env = environment(args.seed, args.profile, args.executor)
    env["wall_seconds"] = round(time.perf_counter() - t0, 2)
    summary = write_report(records, args.out, env)
    print(f"{summary['passed']}/{summary['checks']} checks passed in {env['wall_seconds']:.1f} s; "
          f"report: {args.out}/index.html, {args.out}/report.md, {args.out}/results.json")
    return 0 if summary["failed"] == 0 and summary["checks"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
