#!/usr/bin/env python3
"""Collectives at scale (issue 15): `gridscope compare` on three sites, grid5000-3 and the
asymmetric benchmarks/collectives/asym-3.toml, at 64 ranks (128 with --ranks 64,128):
topo against the multi-site lower bound (target <= 1.3x) and auto against vanilla (target
<= 1/0.98 of vanilla's time), every row printed as a Markdown table.

Long (several minutes per platform and rank count on 2 cores; vanilla's runs at 128 ranks
take about 10 minutes each): a benchmark, not a test. Vanilla runs in its own compare folder,
OUT/PLATFORM-N/vanilla, which --reuse-vanilla keeps (SimGrid's collectives do not change
with the library); topo and auto run in OUT/PLATFORM-N/library with `--vanilla-from` it.
--docs writes the tables into docs/perf-collectives.md between its GENERATED markers.
Usage: scale.py [--out DIR] [--ranks 64] [--reuse | --reuse-vanilla] [--docs]
(PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native during development.)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from figures import ms, write_generated

HERE = Path(__file__).resolve().parent
DOC = HERE.parent.parent / "docs" / "perf-collectives.md"
PLATFORMS = (("grid5000-3", "grid5000-3"), ("asym-3", str(HERE / "asym-3.toml")))
# 1 MiB is left out: the topo collbench run of 64 ranks with 1 MiB blocks was killed by the
# OOM killer at 21.5 GB (every simulated rank lives in one SMPI process)
SIZES = "8,1024,65536"
TOPO_TARGET = 1.3
AUTO_TARGET = 1 / 0.98        # auto at least 0.98x vanilla's speed


def _run(spec: str, ranks: int, folder: Path, reuse: bool, *extra: str) -> None:
    if not (reuse and (folder / "compare.json").is_file()):
        cmd = [sys.executable, "-m", "gridscope", "compare", "--platform", spec, "-np",
               str(ranks), "--sizes", SIZES, "--no-analysis", "--force", "-o", str(folder),
               *extra]
        print("+", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def compare(spec: str, ranks: int, folder: Path, reuse: bool, reuse_vanilla: bool) -> list[dict]:
    vanilla, library = folder / "vanilla", folder / "library"
    _run(spec, ranks, vanilla, reuse or reuse_vanilla, "--modes", "vanilla")
    _run(spec, ranks, library, reuse, "--modes", "topo,auto", "--vanilla-from", str(vanilla))
    return json.loads((library / "compare.json").read_text())["rows"]


def table(name: str, ranks: int, rows: list[dict]) -> list[str]:
    out = [f"{name}, {ranks} ranks:", "",
           "| op | bytes | placement | vanilla ms | topo ms | auto ms | bound ms | topo/bound "
           "| auto/vanilla | targets |", "|---|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        tb = r["topo_s"] / r["bound_s"] if r["topo_s"] and r["bound_s"] else None
        av = r["auto_s"] / r["vanilla_s"] if r["auto_s"] and r["vanilla_s"] else None
        ok = (tb is None or tb <= TOPO_TARGET) and (av is None or av <= AUTO_TARGET)
        out.append(f"| {r['op']} | {r['bytes']} | {r['placement']} | {ms(r['vanilla_s'])} | "
                   f"{ms(r['topo_s'])} | {ms(r['auto_s'])} | {ms(r['bound_s'])} | "
                   f"{'–' if tb is None else f'{tb:.2f}'} | {'–' if av is None else f'{av:.2f}'}"
                   f" | {'ok' if ok else 'MISSED'} |")
    missed = sum(1 for line in out if line.endswith("MISSED |"))
    out += ["", f"{missed} of {len(rows)} rows miss a target", ""]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("scale-out"))
    ap.add_argument("--ranks", default="64")
    ap.add_argument("--reuse", action="store_true", help="keep every finished compare")
    ap.add_argument("--reuse-vanilla", action="store_true", help="keep finished vanilla runs")
    ap.add_argument("--docs", action="store_true", help=f"write the tables into {DOC.name}")
    a = ap.parse_args()
    lines = []
    for n in (int(x) for x in a.ranks.split(",")):
        for name, spec in PLATFORMS:
            lines += table(name, n, compare(spec, n, a.out.resolve() / f"{name}-{n}", a.reuse,
                                            a.reuse_vanilla))
    text = "\n".join(lines).rstrip()
    print(text)
    if a.docs:
        write_generated(DOC, "benchmarks/collectives/scale.py", text)
        print(f"wrote {DOC}", file=sys.stderr)


if __name__ == "__main__":
    main()
