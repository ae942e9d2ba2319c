#!/usr/bin/env python3
"""Analyzer benchmark (docs/perf-analyzer.md): a >= 30 M-event synthetic trace, analysed by
`gridscope analyze -j 1` and `-j 2`, against a trivial raw libotf2 reader (gs-rawread) on
the same archive, measured in the same run. Prints a markdown table and writes JSON.

    python benchmarks/analyzer/bench_analyzer.py [--ranks 16 --iterations 90000] [--repeat 3]
        [--baseline-src OLD/src --baseline-native OLD/native]

With --baseline-*, every repetition also runs an older build's `gridscope analyze -j 1/-j 2`
(its Python package and native prefix) on the same trace, interleaved, so a busy machine
hits both alike; its medians are printed after the main table.

Targets (issue 4): >= 15 M events/s per process, analyze -j 1 / raw read <= 2.0,
-j 2 >= 1.7x faster than -j 1, peak memory per process reported; start-up < 0.3 s.
Not a test: it reports, it does not assert.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from benchlib import CPU, GRIDSCOPE, MPI_ENV, native_bin, raw_read, timed

# every command, for the start-up figures (`gridscope CMD --help`)
COMMANDS = ("analyze", "cc", "compare", "demo", "diff", "export", "merge", "platform", "record", "report",
            "version", "view")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--iterations", type=int, default=90000, help="22 events per rank and iteration")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command; medians are reported")
    ap.add_argument("--workdir", type=Path, default=None, help="where the trace goes (default: a temp dir)")
    ap.add_argument("--trace", type=Path, default=None,
                    help="analyse this existing trace instead of generating one (e.g. a bench trace kept from before)")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here too")
    ap.add_argument("--baseline-src", type=Path, default=None, help="PYTHONPATH of an older build to compare with")
    ap.add_argument("--baseline-native", type=Path, default=None, help="GRIDSCOPE_NATIVE_DIR of that build")
    args = ap.parse_args()

    work = Path(args.workdir or tempfile.mkdtemp(prefix="gs-bench-analyzer-"))
    work.mkdir(parents=True, exist_ok=True)
    trace = args.trace.absolute() if args.trace else work / "trace"
    env = dict(os.environ, **MPI_ENV)
    baseline_env = None
    if args.baseline_src or args.baseline_native:
        if not (args.baseline_src and args.baseline_native):
            sys.exit("benchmark: --baseline-src and --baseline-native go together")
        baseline_env = dict(env, PYTHONPATH=str(args.baseline_src.absolute()),
                            GRIDSCOPE_NATIVE_DIR=str(args.baseline_native.absolute()))
    base_times: dict[int, list[float]] = {1: [], 2: []}
    base_engine: dict[int, list[float]] = {1: [], 2: []}
    base_after: dict[int, list[float]] = {1: [], 2: []}
    gridscope = GRIDSCOPE
    try:
        gen_s = None
        if args.trace is None:
            shutil.rmtree(trace, ignore_errors=True)
            gen_s, _ = timed([native_bin("gs-tracegen"), "--bench", str(args.ranks), str(args.iterations),
                              str(trace)])
        size = sum(f.stat().st_size for f in trace.rglob("*") if f.is_file())
        raw, one, two = [], [], []
        summaries = {}
        engine_runs: dict[int, list[dict]] = {1: [], 2: []}
        for _ in range(args.repeat):  # interleaved, so machine load hits all alike
            t, events = raw_read(str(trace / "traces.otf2"))
            raw.append(t)
            for jobs, times in ((1, one), (2, two)):
                out = work / f"out-j{jobs}"
                t, _ = timed([*gridscope, "analyze", str(trace), "-o", str(out), "-j", str(jobs), "-q"], env,
                             label=f"j{jobs}")
                times.append(t)
                summaries[jobs] = json.loads((out / "summary.json").read_text())
                engine_runs[jobs].append(summaries[jobs]["analysis"])
                if baseline_env is not None:
                    out = work / f"base-j{jobs}"
                    t, _ = timed([*gridscope, "analyze", str(trace), "-o", str(out), "-j", str(jobs), "-q"],
                                 baseline_env, label=f"base-j{jobs}")
                    base_times[jobs].append(t)
                    base_summary = json.loads((out / "summary.json").read_text())
                    base_engine[jobs].append(max(base_summary["analysis"]["engine_process_s"]))
                    base_after[jobs].append(base_summary["analysis"]["total_s"] - base_summary["analysis"]["engine_s"])
                    # keys a newer build added are not a difference
                    common = (set(base_summary) & set(summaries[jobs])) - {"analysis"}
                    if any(base_summary[k] != summaries[jobs][k] for k in common):
                        print(f"benchmark: baseline -j {jobs} summary differs from this build's", file=sys.stderr)
        startup = {}
        for command in ("", *COMMANDS):
            cmd = [*gridscope, *([command] if command else []), "--help"]
            startup[" ".join(["gridscope", *cmd[len(gridscope):]])] = min(timed(cmd)[0] for _ in range(3))
        raw_s, one_s, two_s = (statistics.median(x) for x in (raw, one, two))
        figures = {
            "trace_events": events, "trace_bytes": size, "ranks": summaries[1]["ranks"], "generate_s": gen_s,
            "raw_read_s": raw_s, "raw_events_per_s": events / raw_s,
            "analyze_j1_s": one_s, "analyze_j2_s": two_s,
            "events_per_s_per_process_j1": events / one_s,
            "events_per_s_per_process_j2": events / (2 * two_s),
            "ratio_j1_to_raw": one_s / raw_s, "speedup_j2": one_s / two_s,
            # medians over the repetitions, like the wall times
            "engine_s_j1": statistics.median(a["engine_s"] for a in engine_runs[1]),
            "engine_s_j2": statistics.median(a["engine_s"] for a in engine_runs[2]),
            # read + replay inside the engine processes (no launcher, no Python): slowest process
            "engine_work_s_j1": statistics.median(max(a["engine_process_s"]) for a in engine_runs[1]),
            "engine_work_s_j2": statistics.median(max(a["engine_process_s"]) for a in engine_runs[2]),
            # in the command, from the engine's end to summary.json (interpreter exit not included)
            "python_after_engine_s_j1": statistics.median(a["total_s"] - a["engine_s"] for a in engine_runs[1]),
            "python_after_engine_s_j2": statistics.median(a["total_s"] - a["engine_s"] for a in engine_runs[2]),
            "peak_rss_mb_j1": [k / 1024 for k in summaries[1]["analysis"]["peak_rss_kb"]],
            "peak_rss_mb_j2": [k / 1024 for k in summaries[2]["analysis"]["peak_rss_kb"]],
            "waitstate_rows": None, "startup_s": startup,
            "load_average": os.getloadavg(),
            "cpu_s": {k: statistics.median(v) for k, v in CPU.items()},
        }
        if summaries[1] != summaries[2]:
            a = {k: v for k, v in summaries[1].items() if k != "analysis"}
            b = {k: v for k, v in summaries[2].items() if k != "analysis"}
            figures["j1_j2_summaries_equal"] = a == b
        from gridscope.analysis.waitstates import read_waitstates

        figures["waitstate_rows"] = len(read_waitstates(work / "out-j1", columns=["rank"]))
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)

    print(f"| figure | value |\n|---|---|")
    print(f"| trace | {events / 1e6:.1f} M events, {size / 2**20:.0f} MiB, {figures['ranks']} ranks |")
    print(f"| raw libotf2 read (gs-rawread) | {raw_s:.2f} s ({events / raw_s / 1e6:.1f} M events/s) |")
    print(f"| gridscope analyze -j 1 | {one_s:.2f} s (engine {figures['engine_s_j1']:.2f} s) -> "
          f"{figures['events_per_s_per_process_j1'] / 1e6:.1f} M events/s per process |")
    print(f"| gridscope analyze -j 2 | {two_s:.2f} s (engine {figures['engine_s_j2']:.2f} s) -> "
          f"{figures['events_per_s_per_process_j2'] / 1e6:.1f} M events/s per process |")
    print(f"| engine work (read + replay, slowest process) | -j 1: {figures['engine_work_s_j1']:.2f} s "
          f"({events / figures['engine_work_s_j1'] / 1e6:.1f} M events/s); -j 2: {figures['engine_work_s_j2']:.2f} s "
          f"({events / 2 / figures['engine_work_s_j2'] / 1e6:.1f} M events/s per process, "
          f"{figures['engine_work_s_j1'] / figures['engine_work_s_j2']:.2f}x) |")
    print(f"| Python after the engine (to summary.json) | -j 1: {figures['python_after_engine_s_j1']:.3f} s; "
          f"-j 2: {figures['python_after_engine_s_j2']:.3f} s |")
    print(f"| ratio analyze -j 1 / raw read | {figures['ratio_j1_to_raw']:.2f} (target <= 2.0) |")
    print(f"| speed-up -j 2 over -j 1 | {figures['speedup_j2']:.2f}x (target >= 1.7x) |")
    print(f"| peak RSS per process | -j 1: {', '.join(f'{m:.0f}' for m in figures['peak_rss_mb_j1'])} MiB; "
          f"-j 2: {', '.join(f'{m:.0f}' for m in figures['peak_rss_mb_j2'])} MiB |")
    print(f"| wait-state rows | {figures['waitstate_rows']:,} |")
    cpu = figures["cpu_s"]
    print(f"| CPU time (user+sys, children included) | raw {cpu['raw']:.2f} s; analyze -j 1 {cpu['j1']:.2f} s "
          f"(ratio {cpu['j1'] / cpu['raw']:.2f}); -j 2 {cpu['j2']:.2f} s |")
    for label, s in startup.items():
        print(f"| start-up `{label}` | {s:.3f} s |")
    print(f"| load average during the run | {', '.join(f'{x:.1f}' for x in figures['load_average'])} |")
    if baseline_env is not None:
        b1, b2 = (statistics.median(base_times[j]) for j in (1, 2))
        figures["baseline"] = {"analyze_j1_s": b1, "analyze_j2_s": b2,
                               "python_after_engine_s_j1": statistics.median(base_after[1]),
                               "python_after_engine_s_j2": statistics.median(base_after[2]),
                               "engine_work_s_j1": statistics.median(base_engine[1]),
                               "engine_work_s_j2": statistics.median(base_engine[2])}
        print(f"\n| baseline (same run, interleaved) | value |\n|---|---|")
        print(f"| gridscope analyze -j 1 | {b1:.2f} s (this build {one_s:.2f} s) |")
        print(f"| gridscope analyze -j 2 | {b2:.2f} s (this build {two_s:.2f} s) |")
        print(f"| engine work -j 1 / -j 2 | {figures['baseline']['engine_work_s_j1']:.2f} / "
              f"{figures['baseline']['engine_work_s_j2']:.2f} s (this build {figures['engine_work_s_j1']:.2f} / "
              f"{figures['engine_work_s_j2']:.2f} s) |")
        print(f"| Python after the engine -j 1 / -j 2 | {figures['baseline']['python_after_engine_s_j1']:.3f} / "
              f"{figures['baseline']['python_after_engine_s_j2']:.3f} s (this build "
              f"{figures['python_after_engine_s_j1']:.3f} / {figures['python_after_engine_s_j2']:.3f} s) |")
        print(f"| ratio -j 1 / raw read | {b1 / raw_s:.2f} (this build {one_s / raw_s:.2f}) |")
        print(f"| speed-up -j 2 over -j 1 | {b1 / b2:.2f}x (this build {one_s / two_s:.2f}x) |")
        print(f"| CPU time -j 1 / -j 2 | {cpu['base-j1']:.2f} / {cpu['base-j2']:.2f} s "
              f"(this build {cpu['j1']:.2f} / {cpu['j2']:.2f} s) |")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
