"""Benchmarks of the shared neural layer (iclr26sci.nn), one part per component, run in sequence.

Parts (each is also a script of its own, with its own options):

- ``bench_nn_lm.py``: SmolLM2 load time (first, cached); sampling and teacher-forced log-prob throughput
  against ``transformers``' own ``generate`` and a plain forward on the same model and batch;
- ``bench_nn_flow.py``: ``FlowMatching`` training time and sample quality against a plain reference loop;
- ``bench_nn_generative.py``: the cached image flow models' training time, sample quality, U-Net throughput;
- ``bench_nn_vision.py``: ``fit`` against a hand-written loop; SmallResNet and SmallViT time and accuracy.

Run: ``python benchmarks/bench_nn.py [--only lm,flow,...] [--quick]``. ``--quick`` is passed to every part
that has that option.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PARTS = ["lm", "flow", "generative", "vision"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(PARTS), help="comma-separated parts: " + ", ".join(PARTS))
    ap.add_argument("--quick", action="store_true", help="smaller sizes, passed to each part")
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        ap.error(f"unknown parts {unknown}; choose from {PARTS}")
    sys.path.insert(0, HERE)
    for part in parts:
        path = os.path.join(HERE, f"bench_nn_{part}.py")
        print(f"\n# nn / {part}  ({os.path.basename(path)})", flush=True)
        t0 = time.perf_counter()
        saved = sys.argv
        with open(path) as f:
            takes_quick = '"--quick"' in f.read()
        sys.argv = [path] + (["--quick"] if args.quick and takes_quick else [])
        try:
            runpy.run_path(path, run_name="__main__")
        except SystemExit as exc:  # a part's argparse or explicit exit
            if exc.code not in (0, None):
                raise
        finally:
            sys.argv = saved
        print(f"# nn / {part}: {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
