#!/usr/bin/env python3
"""What the collector's start-up and finalize cost a simulated run.

    python benchmarks/collector/startup.py [--ranks 12,64,256,1024] [--sites 2,3]
                                           [--before NATIVE_DIR] [--write]

Runs testdata/apps/planted (`--plant none --iters 2`: balanced, two 20 ms steps, each
ending in an 8-byte MPI_Allreduce) under `gridscope record` on 2 and 3 simulated sites of
one-core nodes (0.1 ms, 1 Gbps inside a site; 5 ms, 1 Gbps WAN) and reads from the trace,
in simulated seconds (independent of this machine's load):
- MPI_Init and MPI_Finalize of rank 0, and the largest MPI_Init + MPI_Finalize of any rank;
- the first MPI_Allreduce after MPI_Init against the second (largest over ranks): the
  first collective must not carry start-up work;
- SMPI's layout set-up: simulated time before the program begins (the trace's global
  offset), SimGrid learning MPI_COMM_WORLD's node layout (collector core.c,
  simulator_world_setup), which a real MPI knows from its launcher.
--before DIR repeats each run with the native parts in DIR (e.g. main's build) and adds
its rank-0 figure. --write puts the table into docs/perf-collector.md between this
script's GENERATED markers. Needs smpicc (SimGrid) and the native parts
(GRIDSCOPE_NATIVE_DIR or an installed package).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks" / "collectives"))
from figures import write_generated  # noqa: E402

SCRIPT = "benchmarks/collector/startup.py"
DOC = REPO / "docs" / "perf-collector.md"
APP = REPO / "testdata" / "apps" / "planted" / "planted.c"
SITE_NAMES = ["alpha", "beta", "gamma", "delta"]
_EVENT = re.compile(r'^(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "(MPI_Init|MPI_Finalize|'
                    r'MPI_Allreduce)"')
_OFFSET = re.compile(r"Global Offset: (\d+)")


def platform_toml(sites: int, ranks: int) -> str:
    nodes = math.ceil(ranks / sites)
    lines = ["[platform]", f'description = "{sites} sites of {nodes} one-core nodes, 5 ms WAN"']
    for name in SITE_NAMES[:sites]:
        lines += [f"[metahost.{name}]", f"nodes = {nodes}", 'bandwidth = "1Gbps"',
                  'latency = "0.1ms"']
    lines += ["[wan]", 'bandwidth = "1Gbps"', 'latency = "5ms"']
    return "\n".join(lines) + "\n"


def gridscope(native: Path, *args: str | Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, GRIDSCOPE_NATIVE_DIR=str(native),
               PYTHONPATH=os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "gridscope", *map(str, args)], env=env,
                          check=True, capture_output=True, text=True)


def measure(anchor: Path) -> dict:
    """Durations per rank from the trace (otf2-print applies the clock offsets)."""
    out = subprocess.run(["otf2-print", str(anchor)], check=True, capture_output=True,
                         text=True).stdout
    enter: dict[tuple[int, str], int] = {}
    spans: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for line in out.splitlines():
        m = _EVENT.match(line)
        if not m:
            continue
        kind, loc, t, region = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if kind == "ENTER":
            enter[(loc, region)] = t
        else:
            spans[loc][region].append((t - enter[(loc, region)]) / 1e9)
    defs = subprocess.run(["otf2-print", "-G", str(anchor)], check=True, capture_output=True,
                          text=True).stdout
    setup = int(_OFFSET.search(defs).group(1)) / 1e9
    init_fin = {r: s["MPI_Init"][0] + s["MPI_Finalize"][0] for r, s in spans.items()}
    return {
        "init0": spans[0]["MPI_Init"][0], "fin0": spans[0]["MPI_Finalize"][0],
        "both_max": max(init_fin.values()),
        "allreduce1": max(s["MPI_Allreduce"][0] for s in spans.values()),
        "allreduce2": max(s["MPI_Allreduce"][1] for s in spans.values()),
        "setup": setup, "ranks_seen": len(spans),
    }


def run(native: Path, work: Path, sites: int, ranks: int, tag: str) -> dict:
    app = work / f"planted-{tag}"
    if not app.exists():
        gridscope(native, "cc", "--simulate", APP, "-I", REPO / "testdata" / "apps" / "common",
                  "-o", app)
    plat = work / f"sites{sites}-{ranks}.toml"
    plat.write_text(platform_toml(sites, ranks))
    out = work / f"{tag}-{sites}-{ranks}"
    t0 = time.monotonic()
    gridscope(native, "record", "--platform", plat, "-np", str(ranks), "-o", out, "--force",
              "--", app, "--plant", "none", "--iters", "2")
    row = measure(out / "traces.otf2")
    row["wall"] = time.monotonic() - t0
    return row


def table(rows: list[dict], before: bool) -> list[str]:
    head = ("| sites | ranks | rank 0 MPI_Init | rank 0 MPI_Finalize | rank 0 both"
            + (" | before: rank 0 both" if before else "")
            + " | largest both (any rank) | first / second MPI_Allreduce | SMPI layout set-up"
            " before the program | simulation wall time |")
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        b = r.get("before")
        out.append(
            f"| {r['sites']} | {r['ranks']} | {r['init0']:.3f} s | {r['fin0']:.3f} s | "
            f"**{r['init0'] + r['fin0']:.3f} s** | "
            + (f"{b['init0'] + b['fin0']:.3f} s | " if before and b else "– | " if before else "")
            + f"{r['both_max']:.3f} s | {r['allreduce1'] * 1e3:.1f} / "
            f"{r['allreduce2'] * 1e3:.1f} ms | {r['setup']:.3f} s | {r['wall']:.0f} s |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", default="12,64,256,1024")
    ap.add_argument("--sites", default="2,3")
    ap.add_argument("--before", type=Path, help="native parts to compare with (e.g. main's)")
    ap.add_argument("--before-max", type=int, default=256,
                    help="largest run repeated with --before (its start-up is slow to simulate)")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    native = Path(os.environ.get("GRIDSCOPE_NATIVE_DIR", REPO / "build" / "dev-native"))
    work = Path(tempfile.mkdtemp(prefix="gs-startup-"))
    rows = []
    for sites in map(int, args.sites.split(",")):
        for ranks in map(int, args.ranks.split(",")):
            row = {"sites": sites, "ranks": ranks, **run(native, work, sites, ranks, "now")}
            if args.before and ranks <= args.before_max:
                row["before"] = run(args.before, work, sites, ranks, "before")
            rows.append(row)
            print("\n".join(table([row], bool(args.before))[2:]), flush=True)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()[0]
    text = "\n".join([
        f"Measured {when} (`python {SCRIPT} --ranks {args.ranks} --sites {args.sites}"
        + (" --before ..." if args.before else "") + "`); simulated seconds from the traces, "
        f"so the figures do not depend on this machine's load ({load:.1f} on 2 cores); "
        "\"both\" = MPI_Init + MPI_Finalize.", "", *table(rows, bool(args.before))])
    print(text)
    if args.write:
        write_generated(DOC, SCRIPT, text)


if __name__ == "__main__":
    main()
