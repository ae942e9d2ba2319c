#!/usr/bin/env python3
"""Where the wall time of `gridscope analyze TRACE -o OUT -j N -q` goes around the engine
(docs/perf-analyzer.md, "Python part"): not a test, it reports.

    python benchmarks/analyzer/bench_python_phases.py TRACE [-j 1 2] [--repeat 3]
        [--baseline-src OLD/src] [--workdir DIR]

The engine binary is wrapped by a small shell script (GRIDSCOPE_NATIVE_DIR points at a
prefix whose bin/gridscope-replay logs its start, end and CPU time, then the real engine's
exit status), so each run splits into

- before: command start -> engine start (Python start-up, CLI, driver; mpirun's launch with -j N),
- engine: first engine process start -> its "output written" line (the driver goes on there
  and does not wait for the processes' exit),
- after: that line -> summary.json written (reading the engine output, the three files),
- exit: summary.json written -> command end (interpreter shutdown),
- Python CPU: the command's CPU time (user + sys, children included) minus the engine's. The
  bench is the child subreaper of the command, so an engine still exiting when the command
  ended is reaped here and its CPU counted (then subtracted).

With --baseline-src every repetition also runs that older Python package (same engine),
interleaved, so a busy machine hits both alike. Medians are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import MPI_ENV, reap_orphans

WRAPPER = """#!/bin/bash
s=$(date +%s.%N)
{engine} "$@" | while IFS= read -r line; do
  printf '%s\\n' "$line"
  [ "$line" = "{done}" ] && date +%s.%N > "$GS_PHASES_LOG.written"
done
rc=${{PIPESTATUS[0]}}
tf=$(mktemp); times > "$tf"; cpu=$(tail -1 "$tf"); rm -f "$tf"
echo "$s $(cat "$GS_PHASES_LOG.written" 2>/dev/null || date +%s.%N) $cpu" >> "$GS_PHASES_LOG"
exit $rc
"""
COLUMNS = ("total", "before", "engine", "after", "exit", "python_cpu")


def bash_seconds(text: str) -> float:
    """`times` output such as 1m2.500s -> 62.5"""
    minutes, _, seconds = text.rstrip("s").partition("m")
    return int(minutes) * 60 + float(seconds)


def run_once(src: Path, trace: Path, out: Path, jobs: int, prefix: Path, log: Path) -> dict[str, float]:
    log.unlink(missing_ok=True)
    Path(f"{log}.written").unlink(missing_ok=True)
    env = dict(os.environ, **MPI_ENV, PYTHONPATH=str(src), GRIDSCOPE_NATIVE_DIR=str(prefix), GS_PHASES_LOG=str(log))
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    subprocess.run([sys.executable, "-m", "gridscope", "analyze", str(trace), "-o", str(out), "-j", str(jobs), "-q"],
                   env=env, check=True)
    t1 = time.time()
    reap_orphans()  # (the engine's wrapper logs once the engine has exited)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows = [line.split() for line in log.read_text().splitlines()]
    start, end = min(float(r[0]) for r in rows), max(float(r[1]) for r in rows)
    engine_cpu = sum(bash_seconds(r[2]) + bash_seconds(r[3]) for r in rows)
    written = (out / "summary.json").stat().st_mtime
    cpu = ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime
    return {"total": t1 - t0, "before": start - t0, "engine": end - start, "after": written - end,
            "exit": t1 - written, "python_cpu": cpu - engine_cpu}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", type=Path)
    ap.add_argument("-j", "--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline-src", type=Path, default=None, help="PYTHONPATH of an older build")
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args()

    from gridscope import native
    from gridscope.analysis import names as N

    work = Path(args.workdir or tempfile.mkdtemp(prefix="gs-bench-phases-")).absolute()
    (work / "native" / "bin").mkdir(parents=True, exist_ok=True)
    wrapper = work / "native" / "bin" / "gridscope-replay"
    wrapper.write_text(WRAPPER.format(engine=native.binary("gridscope-replay"), done=N.ENGINE_DONE))
    wrapper.chmod(0o755)
    builds = {"this build": Path(__file__).resolve().parents[2] / "src"}
    if args.baseline_src:
        builds["baseline"] = args.baseline_src.absolute()
    results: dict[tuple[str, int], list[dict]] = {}
    for _ in range(args.repeat):
        for jobs in args.jobs:
            for name, src in builds.items():
                out = work / f"out-{name.replace(' ', '-')}-j{jobs}"
                results.setdefault((name, jobs), []).append(
                    run_once(src, args.trace.absolute(), out, jobs, work / "native", work / "phases.log"))
    print("| build | -j | " + " | ".join(f"{c} (s)" for c in COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for (name, jobs), runs in results.items():
        print(f"| {name} | {jobs} | " + " | ".join(f"{statistics.median(r[c] for r in runs):.3f}" for c in COLUMNS)
              + " |")
    print(f"\n(medians of {args.repeat}; load average {', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
