#!/usr/bin/env python3
"""Cost of the root-cause analysis (issue 13): `gridscope analyze` with and without it.

    PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native .venv/bin/python \\
        benchmarks/analyzer/bench_root_causes.py [--repeat 3] [--quick] [--rows a,b] [--workdir DIR]

Rows: the benchmark matrix's trace shapes (bench_matrix.py, traces shared through the same
--workdir). Per row, interleaved --repeat times (medians): `analyze -j 1 -q` with root
causes (--root-causes: on whatever the trace's size) and with --no-root-causes, wall and CPU time (CPU is what a busy shared
machine disturbs least), the engine's root-cause phase (meta.json process_stats), the peak
RSS of the engine with and without, and whether -j 2 gives the same root-cause figures as
-j 1. Target (issue 13): analyze with root causes <= 1.5x analyze without.
Not a test: it reports, it does not assert.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

from bench_matrix import matrix_arguments, trace_for
from benchlib import CPU, GRIDSCOPE, MPI_ENV, median, timed

TARGET = 1.5
ROOT_CAUSE_KEYS = ("root_causes", "critical_path", "wait_classes", "cause_pairs")


def analyze(folder: Path, out: Path, label: str, *extra: str) -> tuple[float, dict]:
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, **MPI_ENV)
    seconds, _ = timed([*GRIDSCOPE, "analyze", str(folder), "-o", str(out), "-q", *extra], env, label=label)
    return seconds, json.loads((out / "summary.json").read_text())


def measure(name: str, folder: Path, work: Path, repeat: int) -> dict:
    on, off, rc_phase, rss_on, rss_off = [], [], [], [], []
    for _ in range(repeat):
        t, summary = analyze(folder, work / "rc-on", f"{name}/on", "--root-causes")
        on.append(t)
        rc_phase.append(max(summary["analysis"]["root_causes_s"]))
        rss_on.append(max(summary["analysis"]["peak_rss_kb"]))
        t, summary_off = analyze(folder, work / "rc-off", f"{name}/off", "--no-root-causes")
        off.append(t)
        rss_off.append(max(summary_off["analysis"]["peak_rss_kb"]))
    _, j2 = analyze(folder, work / "rc-j2", f"{name}/j2", "-j", "2", "--root-causes")
    same_j2 = all(j2.get(k) == summary.get(k) for k in ROOT_CAUSE_KEYS)
    cpu_on, cpu_off = median(CPU[f"{name}/on"]), median(CPU[f"{name}/off"])
    return {"row": name, "analyze_on_s": median(on), "analyze_off_s": median(off), "cpu_on_s": cpu_on,
            "cpu_off_s": cpu_off, "ratio_wall": median(on) / median(off), "ratio_cpu": cpu_on / cpu_off,
            "root_cause_phase_s": median(rc_phase), "rss_on_kb": median(rss_on), "rss_off_kb": median(rss_off),
            "wait_states": summary["root_cause_analysis"].get("wait_states"), "same_j2": same_j2}


def table(rows: list[dict]) -> str:
    lines = [f"| row | analyze -j 1 without | with root causes | ratio wall / CPU (<= {TARGET}x) "
             "| root-cause phase (engine) | wait states | peak RSS without / with | -j 2 = -j 1 |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ok = "pass" if r["ratio_cpu"] <= TARGET else "**FAIL**"
        lines.append(f"| {r['row']} | {r['analyze_off_s']:.2f} s | {r['analyze_on_s']:.2f} s "
                     f"| {r['ratio_wall']:.2f}x / {r['ratio_cpu']:.2f}x {ok} | {r['root_cause_phase_s']:.2f} s | {r['wait_states']:,} "
                     f"| {r['rss_off_kb'] / 1024:.0f} / {r['rss_on_kb'] / 1024:.0f} MiB "
                     f"| {'yes' if r['same_j2'] else '**no**'} |")
    return "\n".join(lines)


def main() -> int:
    args, repeat, shapes = matrix_arguments(__doc__)
    work = args.workdir.absolute()
    work.mkdir(parents=True, exist_ok=True)
    started = time.strftime("%Y-%m-%d %H:%M %Z")
    load = [os.getloadavg()[0]]
    rows = []
    for shape in shapes:
        folder, _ = trace_for(shape, args.events, work)
        rows.append(measure(shape.name, folder, work / "rc-scratch", repeat))
        load.append(os.getloadavg()[0])
        print(f"[{shape.name}] done", file=sys.stderr)
    print(f"Measured {started}, {args.events:,} events per row, --repeat {repeat}, medians; "
          f"load average (1 min) {min(load):.1f}-{max(load):.1f}\n")
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps({"started": started, "rows": rows, "load": load}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
