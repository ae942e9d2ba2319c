#!/usr/bin/env python3
"""Late arrivals (issue 15): vanilla, topo and auto collectives when one site arrives late.

For each platform, placement and late site (the root's metahost, then a metahost without the
root): `gridscope compare --late-site SITE --late-by LATE_MS --no-analysis` with collbench,
so every timed call starts with that site's ranks LATE_MS behind the others. A row's time is
what the call adds after the last arrival (last rank leaving - last rank arriving, common
clock; docs/collectives.md "Late arrivals"); the on-time figures are compare's on-time runs,
from which auto's rules come. Targets: topo and auto each at least 0.98x vanilla's speed
(time <= vanilla / 0.98) on every late row. Writes the Markdown table into
docs/perf-collectives.md between its GENERATED markers (--docs) and prints it.

Usage: late.py [--out DIR] [--platforms grid5000-2,grid5000-3] [--placements block]
               [--late-ms 100] [--reuse] [--docs]
(PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native during development.)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from figures import ms, size, write_generated

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DOC = REPO / "docs" / "perf-collectives.md"
RANKS = 32
SIZES = "8,65536,1048576"
TARGET = 1 / 0.98  # time relative to vanilla's


def root_and_other_site(platform: str, placement: str) -> tuple[str, str]:
    """The metahost of collbench's root (rank 0) and the first metahost without it."""
    from gridscope.testbed.placement import rank_metahosts, shares
    from gridscope.testbed.platform import load_platform

    plat = load_platform(platform)
    counts = shares(plat, RANKS, None)
    root = rank_metahosts(counts, placement)[0]
    other = next(i for i, c in enumerate(counts) if c and i != root)
    return plat.metahosts[root].name, plat.metahosts[other].name


def compare(platform: str, placement: str, site: str, late_ms: float, folder: Path,
            reuse: bool) -> dict:
    if not (reuse and (folder / "compare.json").is_file()):
        cmd = [sys.executable, "-m", "gridscope", "compare", "--platform", platform, "-np",
               str(RANKS), "--placement", placement, "--sizes", SIZES, "--late-site", site,
               "--late-by", f"{late_ms:g}", "--no-analysis", "--force", "-o", str(folder)]
        print("+", " ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.loads((folder / "compare.json").read_text())


def on_time(folder: Path, placement: str, mode: str) -> dict[tuple[str, int], float]:
    """(op, collbench bytes) -> slowest rank's mean time, from compare's on-time run."""
    doc = json.loads((folder / "on-time" / placement / mode / "collbench.json").read_text())
    return {(r["op"], r["bytes"]): r["max_us"] * 1e-6 for r in doc["results"]}


def bench_bytes(op: str, row_bytes: int) -> int:
    return row_bytes // RANKS if op == "alltoall" else row_bytes




def table(platform: str, placement: str, late_ms: float, runs: list[tuple[str, str, Path]],
          ) -> list[str]:
    lines = [f"{platform}, {RANKS} ranks, {placement} placement, one site {late_ms:g} ms late "
             "(times in ms; late: from the last arrival to the last rank leaving; on time: "
             "slowest rank's mean):", "",
             "| late site | op | bytes | on time vanilla | on time topo | vanilla | topo | auto "
             "| topo/vanilla | auto/vanilla | targets |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    missed = total = 0
    for label, _site, folder in runs:
        doc = compare(platform, placement, _site, late_ms, folder, reuse=True)
        ov, ot = on_time(folder, placement, "vanilla"), on_time(folder, placement, "topo")
        for r in doc["rows"]:
            v, t, a = r["vanilla_s"], r["topo_s"], r["auto_s"]
            key = (r["op"], bench_bytes(r["op"], r["bytes"]))
            tv, av = t / v, a / v
            flags = [f"{m} > vanilla/0.98" for m, x in (("topo", tv), ("auto", av)) if x > TARGET]
            missed += bool(flags)
            total += 1
            lines.append(f"| {label} | {r['op']} | {size(r['bytes'])} | {ms(ov.get(key))} | "
                         f"{ms(ot.get(key))} | {ms(v)} | {ms(t)} | {ms(a)} | {tv:.2f} | {av:.2f} "
                         f"| {'ok' if not flags else '**' + '; '.join(flags) + '**'} |")
    lines += ["", f"Rows missing a target: {missed} of {total}.", ""]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench-late")
    ap.add_argument("--platforms", default="grid5000-2")
    ap.add_argument("--placements", default="block")
    ap.add_argument("--late-ms", type=float, default=100.0)
    ap.add_argument("--reuse", action="store_true", help="reuse finished runs in --out")
    ap.add_argument("--docs", action="store_true", help=f"write the table into {DOC.name}")
    a = ap.parse_args()
    body = []
    for platform in a.platforms.split(","):
        for placement in a.placements.split(","):
            root, other = root_and_other_site(platform, placement)
            runs = [(f"{root} (root's)", root, a.out / f"{platform}-{placement}-{root}"),
                    (other, other, a.out / f"{platform}-{placement}-{other}")]
            for _label, site, folder in runs:
                compare(platform, placement, site, a.late_ms, folder.resolve(), a.reuse)
            body += table(platform, placement, a.late_ms, runs)
    text = "\n".join(body)
    print(text)
    if a.docs:
        write_generated(DOC, "benchmarks/collectives/late.py", text)
        print(f"wrote {DOC}", file=sys.stderr)


if __name__ == "__main__":
    main()
