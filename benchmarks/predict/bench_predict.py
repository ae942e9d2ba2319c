"""Validation of `gridscope predict` on the simulated testbed, where the "real" run exists
(issue 14, "Done when"): figures to docs/perf-predict.md.

- self-prediction: metatrace --opt 0/1/2 recorded on viola (16,8) and predicted on its own
  platform with its own collectives;
- code what-if: the opt-1 recording predicted with --speedup cgiteration=0.8 against a
  recording of metatrace --cg-scale 0.8;
- collectives what-if: the opt-1 vanilla recording predicted with --collectives topo
  against a topo recording;
- platform what-if: metatrace opt 1 recorded on grid5000-2 and predicted on grid5000-2 with
  10x the WAN bandwidth and half its latency (a TOML written from the preset's values)
  against a recording on that platform.
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
GRID_PLATFORM = "grid5000-2"
WAN_BANDWIDTH_X, WAN_LATENCY_X = 10.0, 0.5  # the platform what-if
REPEAT = 3


def gs(*args: str) -> float:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gridscope", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"gridscope {' '.join(args)} failed: {proc.stderr.strip()[-400:]}")
    return time.perf_counter() - started


def faster_wan(preset: str, out: Path) -> Path:
    """The preset as a TOML file with every WAN route's bandwidth x10 and latency x0.5."""
    from gridscope.testbed.platform import load_platform
    from gridscope.testbed.units import format_bandwidth, format_duration, format_speed

    plat = load_platform(preset)
    lines = ["[platform]", f'name = "{plat.name}-wan10x"',
             f'description = "{plat.name} with {WAN_BANDWIDTH_X:g}x WAN bandwidth, '
             f'{WAN_LATENCY_X:g}x latency"']
    for mh in plat.metahosts:
        lines += [f"[metahost.{mh.name}]", f"nodes = {mh.nodes}", f"cores = {mh.cores}",
                  f'speed = "{format_speed(mh.speed)}"',
                  f'bandwidth = "{format_bandwidth(mh.bandwidth)}"',
                  f'latency = "{format_duration(mh.latency)}"',
                  f'loopback_bandwidth = "{format_bandwidth(mh.loopback_bandwidth)}"',
                  f'loopback_latency = "{format_duration(mh.loopback_latency)}"']
    first = plat.routes[0]
    lines += ["[wan]", f'bandwidth = "{format_bandwidth(first.bandwidth * WAN_BANDWIDTH_X)}"',
              f'latency = "{format_duration(first.latency * WAN_LATENCY_X)}"',
              f'sharing = "{first.sharing}"']
    for r in plat.routes:  # every direction explicitly, in case the preset's pairs differ
        lines += ["[[wan.pair]]", f'from = "{r.src}"', f'to = "{r.dst}"',
                  f'bandwidth = "{format_bandwidth(r.bandwidth * WAN_BANDWIDTH_X)}"',
                  f'latency = "{format_duration(r.latency * WAN_LATENCY_X)}"']
    out.write_text("\n".join(lines) + "\n")
    return out


def record(work: Path, name: str, app_args: list[str], coll: str = "vanilla",
           platform: str = PLATFORM) -> tuple[Path, float]:
    walls = [gs("record", "--platform", platform, "--layout", LAYOUT, "--coll", coll, "--force",
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
    fast = str(faster_wan(GRID_PLATFORM, work / "grid5000-2-wan10x.toml"))
    before, _ = record(work, "g1", ["--opt", "1"], platform=GRID_PLATFORM)
    rec, rec_wall = record(work, "g1-fast", ["--opt", "1"], platform=fast)
    pred, pred_wall = predict(work, "g1", "pr-g1-fast", "--platform", fast)
    cases.append((f"opt 1 on {GRID_PLATFORM}, --platform 10x WAN bandwidth, 1/2 latency vs "
                  "recording there", rows(rec, pred), rec_wall, pred_wall))
    # what the what-if changes: without it the check would pass for an unchanged prediction
    base_total = rows(before, before)[0].recorded_s
    what_if_note = (f"The {GRID_PLATFORM} recording itself (before the platform what-if): total_time "
                    f"{base_total:.4f} s, {100 * (rows(rec, rec)[0].recorded_s / base_total - 1):+.1f} % "
                    "on the faster WAN.")

    lines = ["| case | quantity | recorded (s) | predicted (s) | error |", "|---|---|---|---|---|"]
    for name, rs, _, _ in cases:
        for r in rs:
            lines.append(f"| {name} | {r.what} | {r.recorded_s:.4f} | {r.predicted_s:.4f} | "
                         f"{100 * r.error:.2f} % |")
    lines += ["", "| case | record wall (s) | predict wall (s) | ratio |", "|---|---|---|---|"]
    for name, _, rw, pw in cases:
        lines.append(f"| {name} | {rw:.2f} | {pw:.2f} | {pw / rw:.2f} |")
    lines += ["", what_if_note]
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
