#!/usr/bin/env python3
"""Collector overhead against the uninstrumented run, measured in the same session.

    python benchmarks/collector/bench_collector.py [--reps 5] [--iters 100000] [--write]

Figures (targets of issue 2: <= 150 ns per event, <= 10 bytes per event, <= 3 % run-time
dilation on the demo application):
- ns per event: extra loop time per recorded event of microbench.c calling MPI_Comm_rank
  in a loop (1 rank: the recording cost alone, two events per call), of Irecv + Send +
  Wait to itself (1 rank, 9 point-to-point events per iteration), of MPI_Put to itself +
  MPI_Win_flush (rank 0 of 2, 6 one-sided events per iteration), and of its
  communication-heavy mode (ping-pong of one int plus an Allreduce every 10
  iterations, 2 ranks: recording plus any disturbance of the communication);
- bytes per event: size of the event files / number of events;
- dilation: microbench loop time and the demo application's (testdata metatrace, 8 ranks,
  its own wall_s) with / without the collector.
Runs alternate plain and recorded; medians are reported. --write replaces the results
section of docs/perf-collector.md. Needs the native parts (GRIDSCOPE_NATIVE_DIR or an
installed package), mpicc, mpirun.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
from gridscope import native  # noqa: E402

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
MARK_BEGIN, MARK_END = "<!-- bench:begin -->", "<!-- bench:end -->"


def build(work: Path) -> tuple[Path, Path]:
    micro = work / "microbench"
    subprocess.run(["mpicc", "-O2", "-o", str(micro), str(Path(__file__).parent / "microbench.c")],
                   check=True)
    apps = REPO / "testdata" / "apps"
    meta = work / "metatrace"
    subprocess.run(["mpicc", "-O2", "-DAPP_NO_REGIONS", "-I", str(apps / "common"), "-o",
                    str(meta), str(apps / "metatrace" / "metatrace.c"), "-lm"], check=True)
    return micro, meta


def run(cmd: list[str], trace: Path | None) -> str:
    env = dict(os.environ, **MPI_ENV)
    launcher = ["mpirun"]
    if trace is not None:
        env["GRIDSCOPE_TRACE_DIR"] = str(trace)
        env["LD_PRELOAD"] = str(native.library("libgridscope_collector.so"))
        launcher += ["-x", "GRIDSCOPE_TRACE_DIR", "-x", "LD_PRELOAD"]
    proc = subprocess.run(launcher + cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return proc.stdout


def events_per_location(trace: Path) -> list[int]:
    out = subprocess.run(["otf2-print", "-G", str(trace / "traces.otf2")], capture_output=True,
                         text=True, check=True).stdout
    return [int(m) for m in re.findall(r"# Events: (\d+)", out)]


def evt_bytes(trace: Path) -> int:
    return sum(f.stat().st_size for f in (trace / "traces").glob("*.evt"))


def measure(args) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        micro, meta = build(work)
        loop = {"plain": [], "recorded": []}
        calls = {"plain": [], "recorded": []}
        selfp2p = {"plain": [], "recorded": []}
        rma = {"plain": [], "recorded": []}
        demo = {"plain": [], "recorded": []}
        events = nbytes = 0
        run(["-np", "2", str(micro), "1000"], None)  # warm-up (page cache, shared memory)
        for rep in range(args.reps):
            for mode in ("plain", "recorded"):
                trace = work / f"r{rep}{mode}" if mode == "recorded" else None
                out = run(["-np", "1", str(micro), str(args.iters), "rank"], trace)
                calls[mode].append(float(re.search(r"loop_s=([\d.]+)", out).group(1)))
                trace = work / f"s{rep}{mode}" if mode == "recorded" else None
                out = run(["-np", "1", str(micro), str(args.iters), "self"], trace)
                selfp2p[mode].append(float(re.search(r"loop_s=([\d.]+)", out).group(1)))
                trace = work / f"o{rep}{mode}" if mode == "recorded" else None
                out = run(["-np", "2", str(micro), str(args.iters), "rma"], trace)
                rma[mode].append(float(re.search(r"loop_s=([\d.]+)", out).group(1)))
                trace = work / f"m{rep}{mode}" if mode == "recorded" else None
                out = run(["-np", "2", str(micro), str(args.iters)], trace)
                loop[mode].append(float(re.search(r"loop_s=([\d.]+)", out).group(1)))
                if trace is not None:
                    per_loc = events_per_location(trace)
                    events, nbytes = max(per_loc), evt_bytes(trace) / sum(per_loc)
                trace = work / f"d{rep}{mode}" if mode == "recorded" else None
                out = run(["-np", "8", str(meta), "--opt", "1", "--steps", str(args.steps)], trace)
                demo[mode].append(float(re.search(r'"wall_s": ([\d.]+)', out).group(1)))
        lp, lr = statistics.median(loop["plain"]), statistics.median(loop["recorded"])
        dp, dr = statistics.median(demo["plain"]), statistics.median(demo["recorded"])
        cp, cr = statistics.median(calls["plain"]), statistics.median(calls["recorded"])
        sp, sr = statistics.median(selfp2p["plain"]), statistics.median(selfp2p["recorded"])
        op, orec = statistics.median(rma["plain"]), statistics.median(rma["recorded"])
        return {
            "ns_per_event_self": (sr - sp) / (9 * args.iters) * 1e9,
            "self_plain_s": sp, "self_recorded_s": sr,
            "ns_per_event_rma": (orec - op) / (6 * args.iters) * 1e9,
            "rma_plain_s": op, "rma_recorded_s": orec,
            "ns_per_event_calls": (cr - cp) / (2 * args.iters) * 1e9,
            "calls_plain_s": cp, "calls_recorded_s": cr,
            "ns_per_event": (lr - lp) / events * 1e9,
            "bytes_per_event": nbytes,
            "micro_plain_s": lp, "micro_recorded_s": lr, "micro_dilation": lr / lp - 1,
            "events_per_rank": events,
            "demo_plain_s": dp, "demo_recorded_s": dr, "demo_dilation": dr / dp - 1,
        }


def table(r: dict[str, float], args) -> str:
    return "\n".join([
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on this machine "
        f"(`python benchmarks/collector/bench_collector.py --reps {args.reps} --iters "
        f"{args.iters} --steps {args.steps}`), medians of {args.reps} alternating runs; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine).",
        "",
        "| figure | measured | target |",
        "|---|---|---|",
        f"| cost per event (MPI_Comm_rank loop, 1 rank: {r['calls_plain_s']:.4f} s → "
        f"{r['calls_recorded_s']:.4f} s for {2 * args.iters:,} events) | "
        f"{r['ns_per_event_calls']:.0f} ns | ≤ 150 ns |",
        f"| cost per event (Irecv + Send + Wait to itself, 1 rank: {r['self_plain_s']:.4f} s → "
        f"{r['self_recorded_s']:.4f} s for {9 * args.iters:,} events) | "
        f"{r['ns_per_event_self']:.0f} ns | ≤ 150 ns |",
        f"| cost per event (MPI_Put + MPI_Win_flush to itself, rank 0 of 2: {r['rma_plain_s']:.4f} s → "
        f"{r['rma_recorded_s']:.4f} s for {6 * args.iters:,} events) | "
        f"{r['ns_per_event_rma']:.0f} ns | ≤ 150 ns |",
        f"| cost per event (ping-pong micro-benchmark, 2 ranks) | {r['ns_per_event']:.0f} ns "
        f"| ≤ 150 ns |",
        f"| bytes per event (event files) | {r['bytes_per_event']:.1f} B | ≤ 10 B |",
        f"| micro-benchmark loop, plain → recorded | {r['micro_plain_s']:.3f} s → "
        f"{r['micro_recorded_s']:.3f} s ({100 * r['micro_dilation']:+.1f} %, "
        f"{r['events_per_rank']:,} events per rank) | — |",
        f"| demo application (metatrace --opt 1, 8 ranks), plain → recorded | "
        f"{r['demo_plain_s']:.3f} s → {r['demo_recorded_s']:.3f} s "
        f"({100 * r['demo_dilation']:+.1f} %) | ≤ 3 % |",
    ])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--iters", type=int, default=100000)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--write", action="store_true", help="update docs/perf-collector.md")
    args = p.parse_args()
    text = table(measure(args), args)
    print(text)
    if args.write:
        doc = REPO / "docs" / "perf-collector.md"
        old = doc.read_text()
        head, _, rest = old.partition(MARK_BEGIN)
        _, _, tail = rest.partition(MARK_END)
        doc.write_text(f"{head}{MARK_BEGIN}\n{text}\n{MARK_END}{tail}")


if __name__ == "__main__":
    main()
