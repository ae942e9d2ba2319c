"""Regression snapshot: analyse every synthetic spec and every shared Score-P trace, and print one
digest line per output file, so a refactoring can show that it changed no output byte.

    python tests/snapshot/snapshot.py > before.txt     # on the old build
    python tests/snapshot/snapshot.py > after.txt      # on the new build
    diff before.txt after.txt                          # empty: outputs byte-identical

Run with the build to check on PATH / GRIDSCOPE_NATIVE_DIR. Timings and memory figures in
summary.json ("analysis") and the cubex members' mtimes differ on every run and are left out; everything else is hashed as
written. Each trace is analysed with -j 1, -j 2 and -j 3, and with --time-correct.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tarfile
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "tests" / "analyzer" / "specs"
SCOREP = REPO.parent / "shared" / "testdata" / "scorep"
RUN_DEPENDENT = ("analysis",)  # summary.json keys that hold this run's timings


def digest(path: Path, work: Path) -> str:
    if path.name == "summary.json":
        summary = json.loads(path.read_text())
        for key in RUN_DEPENDENT:
            summary.pop(key, None)
        data = json.dumps(summary, sort_keys=True).encode()
    elif path.suffix == ".cubex":  # a tar: its members' names and bytes, not their mtimes
        with tarfile.open(path) as cubex:
            data = b"".join(m.name.encode() + cubex.extractfile(m).read()
                            for m in cubex.getmembers() if m.isfile())
    else:
        data = path.read_bytes()
    return hashlib.sha256(data.replace(str(work).encode(), b"<work>")).hexdigest()[:16]


def analyse(trace: Path, out: Path, extra: list[str], work: Path) -> list[str]:
    cmd = ["gridscope", "analyze", str(trace), "-o", str(out), "-q", "--no-gains", *extra]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return [f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"]
    return [f"{f.relative_to(out)} {digest(f, work)}" for f in sorted(out.rglob("*")) if f.is_file()]


def scorep_traces() -> list[Path]:
    return sorted(p.parent for p in SCOREP.glob("*/traces.otf2"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="substring of the trace names to snapshot")
    parser.add_argument("--work", default="/tmp/gridscope-snapshot",
                        help="scratch folder, emptied first (default: %(default)s)")
    args = parser.parse_args()
    from gridscope import native

    tracegen = str(native.binary("gs-tracegen"))
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)  # outputs name their trace: hashed with <work> for it
    cases: list[tuple[str, Path, list[list[str]]]] = []
    for spec in sorted(SPECS.glob("*.spec")):
        trace = work / "traces" / spec.stem
        subprocess.run([tracegen, str(spec), str(trace)], check=True,
                       capture_output=True)
        cases.append((f"spec/{spec.stem}", trace, [[], ["-j", "2"], ["-j", "3"], ["--time-correct"]]))
    for trace in scorep_traces():
        cases.append((f"scorep/{trace.name}", trace, [[], ["-j", "2"], ["-j", "3"], ["--time-correct"]]))
    for name, trace, variants in cases:
        if args.only and args.only not in name:
            continue
        for n, extra in enumerate(variants):
            out = work / "out" / name / str(n)
            for line in analyse(trace, out, extra, work):
                line = line.replace(str(work), "<work>")
                print(f"{name} [{' '.join(extra)}] {line}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
