"""The ``iclr26sci`` command: ``validate``, ``list``, ``data list``."""
from __future__ import annotations

import argparse
import os
import sys
import time

__all__ = ["main"]

_METHOD_KEYS = ("prob", "games", "causal", "kernels", "embeddings", "imitation")


def _method_keys() -> list[str]:
    try:
        from validation.registry import METHODS

        return list(METHODS)
    except Exception:  # pragma: no cover - validation not importable: fall back to the wave-1 keys
        return list(_METHOD_KEYS)


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows every option's default (unless its help already says it), keeps the epilog's line breaks."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default:" in text or action.default in (None, argparse.SUPPRESS):
            return text
        return super()._get_help_string(action)


def _parser() -> argparse.ArgumentParser:
    methods = _method_keys()
    from iclr26sci import __version__

    p = argparse.ArgumentParser(prog="iclr26sci", description="ICLR 2026 methods as validated scientific tools",
                                formatter_class=_Formatter)
    p.add_argument("--version", action="version", version=f"iclr26sci {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="{validate,list,data}")
    v = sub.add_parser(
        "validate", help="run the validation checks and write the report", formatter_class=_Formatter,
        description="Run each method's validation checks (Monte-Carlo tests of the papers' guarantees) and\n"
                    "write results.json, report.md and index.html (and seeds.json/seeds.md with --seeds) to --out.",
        epilog="verdicts: PASS; FAIL; FAIL (known) = declared in validation/known_failures.toml with its reason;\n"
               "XPASS = declared but passed (remove the declaration).\n"
               "claim checks (tier claim): reproduced (PASS) / not reproduced (FAIL, or FAIL (known) if declared) /\n"
               "inconclusive (FAIL, never declarable); a failed positive control fails the claim.\n"
               "exit status: 0 when every check passes or fails only as declared, at every seed;\n"
               "1 on any other failure, an XPASS or a declaration that names no check;\n"
               "2 on bad arguments or a malformed known_failures.toml.\n"
               "examples:\n"
               "  iclr26sci validate --only prob games\n"
               "  iclr26sci validate --only kernels --seeds 0-4 --threads 1 --out /tmp/k1")
    v.add_argument("--only", nargs="+", action="extend", metavar="METHOD",
                   help="methods to validate, one or more of: " + ", ".join(methods) + "; or single checks as "
                        "METHOD.CHECK, e.g. kernels.t6_few_shot (see `iclr26sci list`) (default: all); repeated --only flags add up")
    v.add_argument("--profile", default="quick", metavar="PROFILE",
                   help="quick: the ordinary checks at CI size ([slow] ones are listed as not run); claims: only "
                        "the claim checks (each paper's headline claims with their positive controls) at CI size; "
                        "full: every check, slow and claims included, at paper scale; several joined by ',' run "
                        "into one report, e.g. quick,claims (what make report runs)")
    v.add_argument("--executor", choices=["local", "dask"], default="local",
                   help="local: checks one after another in this process; dask: one task per check on a "
                        "dask.distributed cluster")
    v.add_argument("--scheduler", default=None, help="dask scheduler address (with --executor dask; "
                                                     "default: none, start a LocalCluster)")
    v.add_argument("--workers", type=int, default=None, help="LocalCluster workers (with --executor dask; "
                                                             "default: min(cpus, 4))")
    v.add_argument("--seed", type=int, default=0, help="master seed (each check derives its own from it)")
    v.add_argument("--seeds", default=None, metavar="LIST",
                   help="run every check under several master seeds and report the verdict per seed, flagging "
                        "checks whose verdict differs: '0-4', '0,2,3' or '0-2,7' (overrides --seed; default: none, "
                        "only --seed)")
    v.add_argument("--threads", type=int, default=None, metavar="N",
                   help="threads for torch, BLAS/OpenMP (threadpoolctl) and workers (OMP_NUM_THREADS etc.); "
                        "default: leave the environment's setting")
    v.add_argument("--out", default="reports/validation", help="output folder")
    v.add_argument("--resume", action="store_true",
                   help="go on with an interrupted run: every run writes OUT/checkpoint.jsonl, one line per finished "
                        "check; with --resume a check whose line there has the same profile, master seed, threads and "
                        "code (a fingerprint of the package's and the validation's sources and the numerical "
                        "stack's versions) is not run again, and its stored result is reported; checks that crashed "
                        "run again")
    ls = sub.add_parser("list", help="list methods and their checks (read from the source: nothing is imported)",
                        formatter_class=_Formatter,
                        description="List each method's validation checks, with [claim] and [slow] tags.",
                        epilog="examples:\n  iclr26sci list\n  iclr26sci list causal kernels\n"
                               "  iclr26sci list --claims")
    ls.add_argument("methods", nargs="*", metavar="METHOD",
                    help="only these methods (or METHOD.CHECK keys); default: all")
    ls.add_argument("--claims", action="store_true", help="only the claim checks")
    d = sub.add_parser("data", help="data adapters", formatter_class=_Formatter)
    d.add_argument("action", choices=["list"], help="what to do")
    return p


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "validate":
        return _validate(args)
    if args.command == "list":
        return _list(args)
    if args.command == "data":
        from data_adapters import ADAPTERS

        for name, info in ADAPTERS.items():
            print(f"load_{name}  -> {info.returns}\n    {info.description}  [{info.source}]")
        return 0
    return 2  # pragma: no cover


def _list(args) -> int:
    from validation.registry import METHODS
    from validation.static_index import static_checks

    bad = [m for m in args.methods if m.split(".", 1)[0] not in METHODS]
    if bad:
        print(f"error: unknown method(s) {bad}; choose from {list(METHODS)}", file=sys.stderr)
        return 2
    whole = {m for m in args.methods if "." not in m}
    single = {m for m in args.methods if "." in m}
    specs = [c for c in static_checks() if not args.methods or c.method in whole or c.key in single]
    if args.claims:
        specs = [c for c in specs if c.kind == "claim"]
    missing = sorted(single - {c.key for c in specs})
    if missing:
        print(f"error: no check named {missing} (see `iclr26sci list`)", file=sys.stderr)
        return 2
    for m, (_, title) in METHODS.items():
        mine = [c for c in specs if c.method == m]
        if args.methods and not mine:
            continue
        if args.claims and not mine:
            continue
        print(f"{m}  ({len(mine)} {'claims' if args.claims else 'checks'})  {title}")
        for c in mine:
            budget = f"budget {c.budget:g} s" if c.budget == c.budget else "budget ?"
            print(f"    {c.name}{c.tags} ({budget}): {c.text}")
    return 0


def _validate(args) -> int:
    from iclr26sci.core import InputError
    from validation.registry import METHODS, apply_known_failures, load_checks, load_known_failures, methods_of, \
        parse_profiles, parse_seeds

    if args.scheduler and args.executor != "dask":
        print("error: --scheduler needs --executor dask", file=sys.stderr)
        return 2
    if args.only:
        bad = [m for m in args.only if m.split(".", 1)[0] not in METHODS]
        if bad:
            print(f"error: unknown method(s) {bad}; choose from {list(METHODS)}", file=sys.stderr)
            return 2
    if args.threads is not None and args.threads < 1:
        print(f"error: --threads must be a positive integer, got {args.threads}", file=sys.stderr)
        return 2
    if args.seed < 0:
        print(f"error: --seed must be a non-negative integer, got {args.seed}", file=sys.stderr)
        return 2
    try:
        seeds = parse_seeds(args.seeds) if args.seeds is not None else [args.seed]
        profiles = parse_profiles(args.profile)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        known = load_known_failures()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from validation.report import CHECKPOINT, code_fingerprint, environment, not_run_console, run_validation, \
        seed_table_text, set_threads, slowest_text, write_report

    set_threads(args.threads)
    t0 = time.perf_counter()
    try:
        load_checks(args.only)
        errors = apply_known_failures([], known, methods_of(args.only))
        for e in errors:  # before any work: a declaration that names no check is a mistake to fix first
            print(f"error: {e}", file=sys.stderr)
        if errors:
            return 1
        records = run_validation(args.only, ",".join(profiles), seeds[0], args.executor, args.scheduler, args.workers,
                                 seeds=seeds, known=known, threads=args.threads,
                                 checkpoint=os.path.join(args.out, CHECKPOINT), resume=args.resume)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    env = environment(seeds[0], ",".join(profiles), args.executor, seeds=seeds, threads=args.threads)
    env["only"] = list(args.only) if args.only else None
    env["wall_seconds"] = round(time.perf_counter() - t0, 2)
    env["code_fingerprint"] = code_fingerprint()
    if args.resume:
        env["resumed"] = records.resumed
    summary = write_report(records, args.out, env)
    if records:
        print(slowest_text(records, env=env))
    if len(seeds) > 1:
        print(seed_table_text(records))
    nr = not_run_console(getattr(records, "not_run", []))
    if nr:
        print(nr)
    for r in records:
        if r.get("status") == "XPASS":
            print(f"XPASS: {r['method']}.{r['name']} (seed {r['seed']}) is declared a known failure but passed; "
                  "remove its declaration from validation/known_failures.toml", file=sys.stderr)
    s = summary
    extra = "".join([f", {s['known_failures']} known failure(s)" if s["known_failures"] else "",
                     f", {s['failed']} FAILED" if s["failed"] else "", f", {s['xpass']} XPASS" if s["xpass"] else "",
                     f", {s['not_run_slow']} not run (slow)" if s.get("not_run_slow") else ""])
    if args.resume:
        extra += f", {records.resumed} taken from {args.out}/{CHECKPOINT}"
    seeds_txt = f" at seed {seeds[0]}" + (f" (seeds {args.seeds} run: {len(s.get('unstable', []))} check(s) "
                                          f"change verdict)" if len(seeds) > 1 else "")
    print(f"{s['passed']}/{s['checks']} checks passed{extra}{seeds_txt} in {env['wall_seconds']:.1f} s; "
          f"report: {args.out}/index.html, {args.out}/report.md, {args.out}/results.json"
          + (f", {args.out}/seeds.md" if len(seeds) > 1 else ""))
    from validation.report import verdict_text

    print(f"validate: {verdict_text(s)}")
    return 0 if s["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
