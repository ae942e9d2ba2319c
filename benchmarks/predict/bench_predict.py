"""Validation of `gridscope predict` on the simulated testbed, where the "real" run exists
(issue 14, "Done when"): figures to docs/perf-predict.md.

- self-prediction: metatrace --opt 0/1/2 recorded on viola (16,8) and predicted on its own
  platform with its own collectives;
- code what-if: the opt-1 recording predicted with --speedup cgiteration=0.8 against a
  recording of metatrace --cg-scale 0.8;
- collectives what-if: the opt-1 vanilla recording predicted with --collectives topo
  against a topo recording.
Each row: total time and the recording's top-3 wait states (grid + local), relative error;
wall time of the recording and of the prediction (replay + analysis; median of REPEAT).

    PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=$PWD/build/dev-native /work/main/.venv/bin/python \
        benchmarks/predict/bench_predict.py [--work DIR] [--write docs/perf-predict.md]
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "testdata" / "apps" / "metatrace" / "metatrace.c"
PLATFORM, LAYOUT = "viola", "16,8"
REPEAT = 3


def gs(*args: str) -> float:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gridscope", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"gridscope {' '.join(args)} failed: {proc.stderr.strip()[-400:]}")
    return time.perf_counter() - started


def record(work: Path, name: str, app_args: list[str], coll: str = "vanilla") -> tuple[Path, float]:
    walls = [gs("record", "--platform", PLATFORM, "--layout", LAYOUT, "--coll", coll, "--force",
                "-o", str(work / name), "--", str(work / "mt"), *app_args) for _ in range(REPEAT)]
    gs("analyze", str(work / name), "-o", str(work / f"{name}-an"), "-q")
    return work / f"{name}-an", statistics.median(walls)


def predict(work: Path, trace: str, name: str, *args: str) -> tuple[Path, float]:
    walls = [gs("predict", str(work / trace), "-o", str(work / name), "--force", *args)
             for _ in range(REPEAT)]
    return work / name, statistics.median(walls)


def rows(recorded: Path, predicted: Path) -> list:
    from gridscope.predict.validate import compare

    load = lambda p: json.loads((p / "summary.json").read_text())  # noqa: E731
    return compare(load(recorded), load(predicted))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--write", type=Path, default=None)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="gs-bench-predict-"))
    work.mkdir(parents=True, exist_ok=True)
    gs("cc", "--simulate", str(APP), f"-I{APP.parent.parent / 'common'}", "-O2", "-lm", "-o",
       str(work / "mt"))
    cases = []
    for opt in (0, 1, 2):
        rec, rec_wall = record(work, f"ev{opt}", ["--opt", str(opt)])
        pred, pred_wall = predict(work, f"ev{opt}", f"pr{opt}")
        cases.append((f"self, opt {opt}", rows(rec, pred), rec_wall, pred_wall))
    rec, rec_wall = record(work, "ev1-cg08", ["--opt", "1", "--cg-scale", "0.8"])
    pred, pred_wall = predict(work, "ev1", "pr1-cg08", "--speedup", "cgiteration=0.8")
    cases.append(("opt 1, --speedup cgiteration=0.8 vs --cg-scale 0.8", rows(rec, pred), rec_wall, pred_wall))
    rec, rec_wall = record(work, "ev1-topo", ["--opt", "1"], coll="topo")
    pred, pred_wall = predict(work, "ev1", "pr1-topo", "--collectives", "topo")
    cases.append(("opt 1, vanilla recording --collectives topo vs topo recording", rows(rec, pred),
                  rec_wall, pred_wall))

    lines = ["| case | quantity | recorded (s) | predicted (s) | error |", "|---|---|---|---|---|"]
    for name, rs, _, _ in cases:
        for r in rs:
            lines.append(f"| {name} | {r.what} | {r.recorded_s:.4f} | {r.predicted_s:.4f} | "
                         f"{100 * r.error:.2f} % |")
    lines += ["", "| case | record wall (s) | predict wall (s) | ratio |", "|---|---|---|---|"]
    for name, _, rw, pw in cases:
        lines.append(f"| {name} | {rw:.2f} | {pw:.2f} | {pw / rw:.2f} |")
    table = "\n".join(lines)
    print(table)
    if args.write:
        stamp = datetime.date.today().isoformat()
        text = args.write.read_text() if args.write.exists() else ""
        marker = "<!-- bench_predict -->"
        block = (f"{marker}\nMeasured {stamp} (`benchmarks/predict/bench_predict.py`, metatrace on "
                 f"{PLATFORM} {LAYOUT}, 24 ranks, 12 steps; walls are medians of {REPEAT} on a "
                 f"shared 2-core machine):\n\n{table}\n{marker}")
        if marker in text:
            head, _, rest = text.partition(marker)
            _, _, tail = rest.partition(marker)
            text = head + block + tail
        else:
            text = text + ("\n" if text else "") + block + "\n"
        args.write.write_text(text)


if __name__ == "__main__":
    main()
