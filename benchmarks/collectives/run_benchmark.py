#!/usr/bin/env python3
"""Benchmark of the topology-aware collectives (issue 5). Writes the figures of
docs/perf-collectives.md between its GENERATED markers.

1. `gridscope compare` on grid5000-2, 32 ranks, block and round-robin, 8 B .. 1 MiB:
   topo against the physical lower bound (target <= 1.3x) and auto against vanilla
   (target <= 1.05x), every row reported (measured in the same run: no fixed numbers).
2. Seed 001, Figure 8 setting: multi-lane vs binary vs binomial broadcast (and the
   hierarchical pipelined one and vanilla), 16 + 16 nodes, 10 ms.
3. Seed 003: LG alltoall vs vanilla on lg-30-30 and lg-20-40 (60 ranks).

Usage: run_benchmark.py [--out DIR] [--reuse] [--skip-seeds]
(PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native during development.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from figures import ms, size, write_generated

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DOC = REPO / "docs" / "perf-collectives.md"
TOPO_TARGET = 1.3
AUTO_TARGET = 1.05


def gridscope(*args: str, env: dict | None = None) -> None:
    cmd = [sys.executable, "-m", "gridscope", *args]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, env={**os.environ, **(env or {})})




def compare_section(out: Path, reuse: bool) -> list[str]:
    folder = out / "grid5000-2"
    if not (reuse and (folder / "compare.json").exists()):
        gridscope("compare", "--platform", "grid5000-2", "-np", "32", "-o", str(folder), "--force")
    doc = json.loads((folder / "compare.json").read_text())
    lines = [f"Command: `gridscope compare --platform grid5000-2 -np 32 -o {folder.name}` "
             "(collbench, 2 timed calls after 1 warm-up, each from a common start to the last rank "
             "leaving; vanilla = "
             "SimGrid's `ompi` selector; auto's rules derived from this run's vanilla and "
             "topo timings).", "",
             "| op | bytes | placement | vanilla ms | topo ms | auto ms | bound ms | topo/bound "
             "| speed-up | auto/vanilla | targets |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    misses = []
    for r in doc["rows"]:
        v, t, a, b = r["vanilla_s"], r["topo_s"], r["auto_s"], r["bound_s"]
        tb = t / b if t and b else None
        av = a / v if a and v else None
        ok_t = tb is not None and tb <= TOPO_TARGET
        ok_a = av is not None and av <= AUTO_TARGET
        flags = []
        if not ok_t:
            flags.append(f"topo > {TOPO_TARGET}x bound")
        if not ok_a:
            flags.append(f"auto > {AUTO_TARGET}x vanilla")
        if flags:
            misses.append((r, flags))
        lines.append(f"| {r['op']} | {size(r['bytes'])} | {r['placement']} | {ms(v)} | {ms(t)} "
                     f"| {ms(a)} | {ms(b)} | {tb:.2f} | {v / t:.2f}x | {av:.2f} | "
                     f"{'ok' if not flags else '**' + '; '.join(flags) + '**'} |")
    lines += ["", f"Rows missing a target: {len(misses)} of {len(doc['rows'])}."]
    return lines


def bcast_algorithms(out: Path, reuse: bool) -> list[str]:
    """Seed 001 Figure 8 setting, every broadcast algorithm by GRIDSCOPE_COLL_BCAST."""
    folder = out / "seed001"
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "collbench"
    share = Path(os.environ.get("GRIDSCOPE_NATIVE_DIR", "")) / "share" / "apps"
    if not exe.exists():
        gridscope("cc", "--simulate", f"-I{share / 'common'}", "-O2",
                  str(share / "collbench" / "collbench.c"), "-o", str(exe))
    algos = ["vanilla", "binomial", "binary", "multilane", "hier"]
    res = {}
    for algo in algos:
        run = folder / algo
        js = run / "collbench.json"
        if not (reuse and js.exists()):
            run.mkdir(exist_ok=True)
            gridscope("record", "--platform", str(HERE / "seed001-two-sites.toml"), "-np", "32",
                      "--coll", "topo", "--force", "-o", str(run / "trace"), "--", str(exe),
                      "--ops", "bcast", "--min", "1024", "--max", str(1 << 20),
                      "--iterations", "1", "--warmup", "1", "--json", str(js),
                      env={"GRIDSCOPE_COLL_BCAST": algo})
        res[algo] = {r["bytes"]: r["max_us"] / 1e3 for r in json.loads(js.read_text())["results"]}
    sizes = sorted(res[algos[0]])
    lines = ["| bytes | " + " | ".join(f"{a} ms" for a in algos) + " | binary/multilane | "
             "binomial/multilane |", "|---:|" + "---:|" * (len(algos) + 2)]
    for s in sizes:
        if s < 1024 or (s & (s - 1)) or s.bit_length() % 2 == 0:
            continue  # every other power of two
        cells = " | ".join(f"{res[a][s]:.1f}" for a in algos)
        lines.append(f"| {size(s)} | {cells} | {res['binary'][s] / res['multilane'][s]:.2f} | "
                     f"{res['binomial'][s] / res['multilane'][s]:.2f} |")
    return lines


def lg_alltoall(out: Path, reuse: bool) -> list[str]:
    lines = ["| scenario | bytes per block | vanilla ms | LG ms | speed-up |",
             "|---|---:|---:|---:|---:|"]
    for preset in ("lg-30-30", "lg-20-40"):
        folder = out / preset
        sizes = [1 << k for k in range(0, 17, 4)]  # blocks of 1 B .. 64 KiB
        if not (reuse and (folder / "compare.json").exists()):
            # topo's default alltoall goes direct for bandwidth-bound blocks: LG at every size
            # is auto with a one-line rule table
            rules = out / "lg-rules.txt"
            rules.write_text("alltoall block inf lg\n")
            gridscope("compare", "--platform", preset, "-np", "60", "-o", str(folder), "--force",
                      "--ops", "alltoall", "--placement", "block", "--modes", "vanilla,auto",
                      "--rules", str(rules), "--no-analysis",
                      "--sizes", ",".join(str(s * 60) for s in sizes))
        doc = json.loads((folder / "compare.json").read_text())
        for r in (r for r in doc["rows"] if r["op"] == "alltoall"):
            lg = r["auto_s"] if r.get("auto_s") is not None else r["topo_s"]  # older runs: topo
            lines.append(f"| {preset} | {size(r['bytes'] // 60)} | {ms(r['vanilla_s'])} | "
                         f"{ms(lg)} | {r['vanilla_s'] / lg:.2f}x |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench-collectives")
    ap.add_argument("--reuse", action="store_true", help="reuse finished runs in --out")
    ap.add_argument("--skip-seeds", action="store_true")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    body = ["### grid5000-2, 32 ranks: topo vs bound, auto vs vanilla", ""]
    body += compare_section(args.out, args.reuse)
    if not args.skip_seeds:
        body += ["", "### Seed 001, Figure 8 setting (16 + 16 nodes, 10 ms): broadcast "
                 "algorithms", ""]
        body += bcast_algorithms(args.out, args.reuse)
        body += ["", "### Seed 003: LG alltoall, 30 + 30 and 20 + 40 processes", ""]
        body += lg_alltoall(args.out, args.reuse)
    write_generated(DOC, "benchmarks/collectives/run_benchmark.py", "\n".join(body))
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
