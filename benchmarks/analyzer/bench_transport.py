#!/usr/bin/env python3
"""The engine's -j N transports on one row of the benchmark matrix (issue 16): -j 1, the
engine's own forked processes (-j 2, 3, 4) and the old `mpirun -np N` path (MPI transport),
interleaved --repeat times in the same run, medians of wall (to "output written") and CPU
(all processes, until they exit).

    PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=$PWD/build/dev-native .venv/bin/python \\
        benchmarks/analyzer/bench_transport.py [--row reference] [--repeat 5] [--jobs 2,3,4] \\
        [--workdir /tmp/gs-bench-matrix]

Not a test: it reports, it does not assert. The mpirun runs need Open MPI.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from bench_matrix import FULL_EVENTS, SHAPES, SPEEDUP_TARGET, engine_run, trace_for
from benchlib import CPU, median


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--row", default="reference", choices=[s.name for s in SHAPES])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--jobs", default="2,3,4", help="process counts of the forked runs (mpirun: 2 only)")
    ap.add_argument("--no-mpirun", action="store_true", help="skip the mpirun -np 2 runs")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/gs-bench-matrix"))
    ap.add_argument("--trace", type=Path, default=None,
                    help="this trace folder instead of the row's (e.g. a tiny one: the start-up alone)")
    args = ap.parse_args()
    shape = next(s for s in SHAPES if s.name == args.row)
    work = args.workdir.absolute()
    folder = args.trace.absolute() if args.trace else trace_for(shape, FULL_EVENTS, work)[0]
    anchor = folder / "traces.otf2"
    variants = [("j1", 1, False)] + [(f"fork-j{n}", n, False) for n in map(int, args.jobs.split(","))]
    if not args.no_mpirun:
        variants.insert(2, ("mpirun-j2", 2, True))
    walls: dict[str, list[float]] = {name: [] for name, _, _ in variants}
    started = time.strftime("%Y-%m-%d %H:%M %Z")
    load = [os.getloadavg()[0]]
    for _ in range(args.repeat):  # interleaved: machine load hits every variant alike
        for name, jobs, via_mpirun in variants:
            r = engine_run(anchor, work / f"engine-{name}", jobs, name, via_mpirun=via_mpirun)
            walls[name].append(r["wall_s"])
        load.append(os.getloadavg()[0])
    one = median(walls["j1"])
    print(f"{'Trace' if args.trace else 'Row ' + shape.name} ({folder.name}), measured {started}, --repeat {args.repeat}, medians; "
          f"load average (1 min) {min(load):.1f}-{max(load):.1f}\n")
    print("| engine | wall | speed-up over -j 1 | CPU (all processes) |")
    print("|---|---|---|---|")
    for name, _, _ in variants:
        wall = median(walls[name])
        note = f" (target >= {SPEEDUP_TARGET}x)" if name in ("fork-j2", "mpirun-j2") else ""
        print(f"| {name} | {wall:.3f} s (min {min(walls[name]):.3f}) | {one / wall:.2f}x{note} "
              f"| {median(CPU[name]):.2f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
