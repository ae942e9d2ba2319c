"""Validation of `gridscope predict` on the simulated testbed, where the "real" run exists
(issue 14, "Done when"): figures to docs/perf-predict.md.

- self-prediction: metatrace --opt 0/1/2 on viola (16,8), ray2mesh (flat and hierarchical)
  and collbench on grid5000-2 (16 ranks), each predicted on its own platform with its own
  collectives; target 2 % (total) and 5 % (each top-3 wait state);
- collectives what-if: a vanilla recording predicted with --collectives topo against a topo
  recording, metatrace opt 1 and ray2mesh, block and round-robin placement; target 5 %
  (total), 10 % (each top-3 wait state, its grid and its local part);
- code what-if: metatrace opt 1 predicted with --speedup cgiteration=0.8 against a recording
  of metatrace --cg-scale 0.8; target 5 % (total);
- platform what-if: metatrace opt 1 recorded on grid5000-2 and predicted on grid5000-2 with
  10x the WAN bandwidth and half its latency (a TOML written from the preset's values)
  against a recording on that platform; target 5 % (total).
Speed: the 24-rank metatrace runs recorded and predicted REPEAT times, interleaved; walls and
CPU times of `gridscope record` and `gridscope predict` (with its analysis) and the median of
each prediction phase (summary.json, prediction.phases_s).

    PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=$PWD/build/dev-native /work/main/.venv/bin/python \\
        benchmarks/predict/bench_predict.py [--work DIR] [--write docs/perf-predict.md]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
APPS = REPO / "testdata" / "apps"
PLATFORM, LAYOUT = "viola", "16,8"
GRID_PLATFORM, GRID_RANKS = "grid5000-2", "16"
WAN_BANDWIDTH_X, WAN_LATENCY_X = 10.0, 0.5  # the platform what-if
REPEAT = 3
PHASES = ("actions", "replayer", "replay", "analysis")
SELF, WHAT_IF_COLL, WHAT_IF = (0.02, 0.05), (0.05, 0.10), (0.05, None)  # (total, wait states)


@dataclass
class Case:
    name: str
    rows: list  # validate.Row
    targets: tuple[float, float | None]
    notes: list[str] = field(default_factory=list)


def gs(*args: str) -> float:
    return gs_timed(*args)[0]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def gs_timed(*args: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the command and all it started) of a gridscope
    command. CPU time does not grow with the other helpers' load the way the wall does."""
    started, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run([sys.executable, "-m", "gridscope", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"gridscope {' '.join(args)} failed: {proc.stderr.strip()[-400:]}")
    return time.perf_counter() - started, _children_cpu() - cpu


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


def where(app: str) -> list[str]:
    """metatrace: 16 Trace + 8 Partrace ranks over the two sites; the others 16 ranks."""
    return ["--layout", LAYOUT] if app == "metatrace" else ["-np", GRID_RANKS]


def record(work: Path, name: str, app: str, app_args: list[str], coll: str = "vanilla",
           platform: str = PLATFORM, placement: str = "block") -> Path:
    gs("record", "--platform", platform, *where(app), "--placement", placement, "--coll",
       coll, "--force", "-o", str(work / name), "--", str(work / app), *app_args)
    gs("analyze", str(work / name), "-o", str(work / f"{name}-an"), "-q")
    return work / f"{name}-an"


def predict(work: Path, trace: str, name: str, *args: str) -> Path:
    gs("predict", str(work / trace), "-o", str(work / name), "--force", *args)
    return work / name


def load(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


def rows(recorded: Path, predicted: Path, parts: bool = False) -> list:
    from gridscope.predict.validate import compare

    return compare(load(recorded), load(predicted), parts=parts)


def speed(work: Path, trace: str, app_args: list[str]) -> dict:
    """Walls of REPEAT interleaved recordings and predictions of one configuration."""
    rec, pred, phases = [], [], {p: [] for p in PHASES}
    again, speed_out = work / f"{trace}-again", work / f"{trace}-speed"
    for _ in range(REPEAT):
        # into new folders: removing the last run's (--force) is neither recording nor predicting
        shutil.rmtree(again, ignore_errors=True)
        shutil.rmtree(speed_out, ignore_errors=True)
        rec.append(gs_timed("record", "--platform", PLATFORM, "--layout", LAYOUT, "-o", str(again),
                            "--", str(work / "metatrace"), *app_args))
        pred.append(gs_timed("predict", str(work / trace), "-o", str(speed_out)))
        seen = load(speed_out)["prediction"]["phases_s"]
        for p in PHASES:
            phases[p].append(seen[p])
    med = statistics.median
    return {"record": med(w for w, _ in rec), "predict": med(w for w, _ in pred),
            "record_cpu": med(c for _, c in rec), "predict_cpu": med(c for _, c in pred),
            "phases": {p: med(v) for p, v in phases.items()},
            "replayer": load(work / f"{trace}-speed")["prediction"]["replayer"]}


def master_schedule(work: Path, vanilla: str, topo: str, predicted: str) -> str:
    """What the topo run changes in ray2mesh's schedule against the vanilla recording: the
    order in which the master's wildcard receives matched the workers, and the chunks per
    worker; and whether the prediction (wildcards replayed as such) has the topo run's."""
    from gridscope import native

    def streams(trace: str) -> tuple[list[str], list[int]]:
        out = work / f"{trace.replace('/', '-')}-actions"
        subprocess.run([str(native.binary("gridscope-actions")), str(work / trace / "traces.otf2"),
                        str(out)], check=True, capture_output=True)
        region = (out / "regions.txt").read_text().splitlines().index("trace_rays")
        order = [line.split()[1] for line in (out / "rank-0.act").read_text().splitlines()
                 if line.startswith(("ra ", "r "))]  # a prediction's tie-broken ones are r
        ranks = len(list(out.glob("rank-*.act")))
        chunks = [sum(1 for line in (out / f"rank-{r}.act").read_text().splitlines()
                      if line == f"b {region}") for r in range(ranks)]
        return order, chunks

    order_v, chunks_v = streams(vanilla)
    order_t, chunks_t = streams(topo)
    order_p, chunks_p = streams(f"{predicted}/trace")
    same = sum(1 for a, b in zip(order_v, order_t) if a == b)
    moved = sum(1 for a, b in zip(chunks_v, chunks_t) if a != b)
    same_p = sum(1 for a, b in zip(order_p, order_t) if a == b)
    return (f"the master's {len(order_v)} wildcard receives matched the same worker at {same} "
            f"positions in both recordings; {moved} of {len(chunks_v) - 1} workers traced a "
            f"different number of chunks (vanilla {chunks_v[1:]}, topo {chunks_t[1:]}); the "
            f"prediction's receives match the topo recording's at {same_p} of {len(order_p)} "
            f"positions, its chunks per worker {chunks_p[1:]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--write", type=Path, default=None)
    ap.add_argument("--speed-only", action="store_true",
                    help="only the speed table (printed, not written): to repeat it at another load")
    args = ap.parse_args()
    if args.speed_only and args.write:
        raise SystemExit("--speed-only prints its table; --write takes the whole benchmark")
    work = args.work or Path(tempfile.mkdtemp(prefix="gs-bench-predict-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    for app in ("metatrace", "ray2mesh", "collbench"):
        gs("cc", "--simulate", str(APPS / app / f"{app}.c"), f"-I{APPS / 'common'}", "-O2", "-lm",
           "-o", str(work / app))
    cases: list[Case] = []
    timings = {}
    if args.speed_only:
        for opt in (0, 1, 2):
            record(work, f"ev{opt}", "metatrace", ["--opt", str(opt)])
            timings[f"metatrace opt {opt}"] = speed(work, f"ev{opt}", ["--opt", str(opt)])
        print(f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end\n")
        print(render([], timings))
        return
    for opt in (0, 1, 2):
        rec = record(work, f"ev{opt}", "metatrace", ["--opt", str(opt)])
        cases.append(Case(f"self, metatrace opt {opt}", rows(rec, predict(work, f"ev{opt}", f"pr{opt}")),
                          SELF))
        timings[f"metatrace opt {opt}"] = speed(work, f"ev{opt}", ["--opt", str(opt)])
    for variant, extra in (("flat", []), ("hierarchical", ["--hierarchical"])):
        rec = record(work, f"r2m-{variant}", "ray2mesh", extra, platform=GRID_PLATFORM)
        pred = predict(work, f"r2m-{variant}", f"r2m-{variant}-pr")
        cases.append(Case(f"self, ray2mesh {variant} on {GRID_PLATFORM}", rows(rec, pred), SELF))
    rec = record(work, "cb", "collbench", [], platform=GRID_PLATFORM)
    cases.append(Case(f"self, collbench on {GRID_PLATFORM}", rows(rec, predict(work, "cb", "cb-pr")),
                      SELF))

    for app, platform, app_args in (("metatrace", PLATFORM, ["--opt", "1"]),
                                    ("ray2mesh", GRID_PLATFORM, [])):
        for placement in ("block", "round-robin"):
            tag = f"{app}-{placement}"
            record(work, f"{tag}-v", app, app_args, platform=platform, placement=placement)
            topo = record(work, f"{tag}-t", app, app_args, coll="topo", platform=platform,
                          placement=placement)
            pred = predict(work, f"{tag}-v", f"{tag}-pt", "--collectives", "topo")
            case = Case(f"{app}{' opt 1' if app == 'metatrace' else ''} {placement}, vanilla "
                        "recording --collectives topo vs topo recording",
                        rows(topo, pred, parts=True), WHAT_IF_COLL)
            if app == "ray2mesh":
                case.notes.append(master_schedule(work, f"{tag}-v", f"{tag}-t", f"{tag}-pt"))
            cases.append(case)

    rec = record(work, "ev1-cg08", "metatrace", ["--opt", "1", "--cg-scale", "0.8"])
    pred = predict(work, "ev1", "pr1-cg08", "--speedup", "cgiteration=0.8")
    cases.append(Case("metatrace opt 1, --speedup cgiteration=0.8 vs --cg-scale 0.8", rows(rec, pred),
                      WHAT_IF))
    fast = str(faster_wan(GRID_PLATFORM, work / "grid5000-2-wan10x.toml"))
    before = record(work, "g1", "metatrace", ["--opt", "1"], platform=GRID_PLATFORM)
    rec = record(work, "g1-fast", "metatrace", ["--opt", "1"], platform=fast)
    pred = predict(work, "g1", "pr-g1-fast", "--platform", fast)
    base_total = load(before)["total_time_s"]
    cases.append(Case(f"metatrace opt 1 on {GRID_PLATFORM}, --platform 10x WAN bandwidth, 1/2 "
                      "latency vs recording there", rows(rec, pred), WHAT_IF,
                      [f"the {GRID_PLATFORM} recording itself: total_time {base_total:.4f} s, "
                       f"{100 * (load(rec)['total_time_s'] / base_total - 1):+.1f} % on the faster "
                       "WAN, so the small error is not a prediction that stayed put"]))

    table = render(cases, timings)
    elapsed = time.perf_counter() - started
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = (f"Measured {stamp} (`benchmarks/predict/bench_predict.py`, {elapsed / 60:.0f} min; "
            f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
            f"walls and CPU times are medians of {REPEAT} on a shared 2-core machine):")
    print(head + "\n\n" + table)
    if args.write:
        write(args.write, head + "\n\n" + table)


def _pct(error: float) -> str:
    return "inf" if error == float("inf") else f"{100 * error:.2f} %"


def render(cases: list[Case], timings: dict) -> str:
    lines = ["| case | quantity | recorded (s) | predicted (s) | error | target |",
             "|---|---|---|---|---|---|"]
    notes = []
    for c in cases:
        for i, r in enumerate(c.rows):
            target = c.targets[0] if i == 0 else c.targets[1]
            verdict = "—" if target is None else (f"≤ {100 * target:g} %" if r.error <= target
                                                  else f"**missed** (≤ {100 * target:g} %)")
            lines.append(f"| {c.name} | {r.what} | {r.recorded_s:.4f} | {r.predicted_s:.4f} | "
                         f"{_pct(r.error)} | {verdict} |")
        notes += [f"- {c.name}: {n}." for n in c.notes]
    lines += [""] + notes
    lines += ["", "| 24 ranks, viola 16,8 | record wall (s) | predict wall (s) | predict/record | "
              "record CPU (s) | predict CPU (s) | CPU ratio | "
              + " | ".join(f"{p} (s)" for p in PHASES) + " |", "|---" * (7 + len(PHASES)) + "|"]
    for name, t in timings.items():
        lines.append(f"| {name} | {t['record']:.2f} | {t['predict']:.2f} | "
                     f"**{t['predict'] / t['record']:.2f}** | {t['record_cpu']:.2f} | "
                     f"{t['predict_cpu']:.2f} | {t['predict_cpu'] / t['record_cpu']:.2f} | "
                     + " | ".join(f"{t['phases'][p]:.3f}" for p in PHASES) + " |")
    how = {t["replayer"] for t in timings.values()}
    lines += ["", f"Replayer: {', '.join(sorted(how))} (docs/predict.md, \"Speed\")."]
    return "\n".join(lines)


def write(path: Path, block_text: str) -> None:
    marker = "<!-- bench_predict -->"
    text = path.read_text() if path.exists() else ""
    block = f"{marker}\n{block_text}\n{marker}"
    if marker in text:
        head, _, rest = text.partition(marker)
        _, _, tail = rest.partition(marker)
        text = head + block + tail
    else:
        text = text + ("\n" if text else "") + block + "\n"
    path.write_text(text)


if __name__ == "__main__":
    main()
