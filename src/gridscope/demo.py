"""`gridscope demo`: the main job, seed 002's optimisation study end to end.

Builds the demo application, records MetaTrace's three optimisation cycles (--opt 0/1/2)
on the simulated VIOLA metacomputer, analyses each, compares vanilla and topology-aware
collectives on grid5000-2, diffs consecutive cycles and writes one report. Every step is a
`gridscope` command run as a subprocess, so the demo depends only on the public command
lines of the other parts; a step that fails (or whose command does not exist) is reported
in one line, the steps that need it are skipped, and nothing is made up in its place.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from gridscope.errors import GridscopeError

PLATFORM = "viola"
RANKS = 24
LAYOUT = "16,8"               # Trace on FH-BRS (16 ranks), Partrace on FZJ (8), Table 1
COMPARE_PLATFORM = "grid5000-2"
COMPARE_RANKS = 16
# The demo's sweep: four collectives at a small and a large size, both placements (about 20 s
# of simulation on 2 cores); `gridscope demo --full-compare` runs compare's whole default sweep
# (seven collectives, four sizes: over a minute), as benchmarks/collectives does.
DEMO_COMPARE = ("--sizes", "1024,65536", "--ops", "bcast,allreduce,allgather,alltoall")
CYCLES = (0, 1, 2)
APP = "metatrace"
# What would a 20 % faster conjugate-gradient computation buy in cycle 1? (gridscope predict)
WHAT_IF_CYCLE, WHAT_IF_SPEEDUP = 1, "cgiteration=0.8"
STEP_TIMEOUT_S = 900
# Simulated runs need none of these, but a real MPI fallback inside a step would.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1",
           "OMPI_MCA_mpi_yield_when_idle": "1"}  # oversubscribed ranks yield instead of spinning


def run_folder(out: Path, cycle: int) -> Path:
    return out / f"{APP}-opt{cycle}"


@dataclass(frozen=True)
class Step:
    key: str
    label: str
    args: tuple[str, ...]             # arguments after `gridscope`
    needs: tuple[str, ...] = ()       # keys of steps that must have succeeded
    optional_args: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (path that must exist, args)


@dataclass
class Outcome:
    step: Step
    status: str                       # "ok", "failed", "skipped" (needs a failed step),
                                      # "omitted" (left out on request)
    line: str = ""
    seconds: float = 0.0


def plan(out: Path, apps: Path, full_compare: bool = False) -> list[Step]:
    """The demo's command lines, in order (pure: nothing runs here)."""
    binary = out / "bin" / APP
    steps = [Step("build", f"build {APP} for the simulator",
                  ("cc", "--simulate", str(apps / APP / f"{APP}.c"), f"-I{apps / 'common'}",
                   "-o", str(binary), "-lm"))]
    for c in CYCLES:
        folder = run_folder(out, c)
        steps.append(Step(f"record{c}", f"record {APP} --opt {c} on {PLATFORM} ({RANKS} ranks)",
                          ("record", "--platform", PLATFORM, "-np", str(RANKS), "--layout",
                           LAYOUT, "--force", "-o", str(folder / "trace"), "--",
                           str(binary), "--opt", str(c)), needs=("build",)))
        steps.append(Step(f"analyze{c}", f"analyse cycle {c}",
                          ("analyze", str(folder / "trace"), "-o", str(folder), "-q"),
                          needs=(f"record{c}",)))
    steps.append(Step("compare", f"compare collectives on {COMPARE_PLATFORM}",
                      ("compare", "--platform", COMPARE_PLATFORM, "-np", str(COMPARE_RANKS),
                       "-o", str(out / "compare"), "--force", *(() if full_compare else DEMO_COMPARE))))
    for a, b in zip(CYCLES, CYCLES[1:]):
        steps.append(Step(f"diff{a}{b}", f"diff cycle {a} → {b}",
                          ("diff", str(run_folder(out, a)), str(run_folder(out, b)),
                           "-o", str(out / f"diff-opt{a}-opt{b}")),
                          needs=(f"analyze{a}", f"analyze{b}")))
    what_if = out / f"{APP}-opt{WHAT_IF_CYCLE}-predicted-cg0.8"
    steps.append(Step("predict", f"predict cycle {WHAT_IF_CYCLE} with {WHAT_IF_SPEEDUP}",
                      ("predict", str(run_folder(out, WHAT_IF_CYCLE)), "-o", str(what_if),
                       "--speedup", WHAT_IF_SPEEDUP, "--force"), needs=(f"analyze{WHAT_IF_CYCLE}",)))
    steps.append(Step("diff_predicted", f"diff cycle {WHAT_IF_CYCLE} → its prediction",
                      ("diff", str(run_folder(out, WHAT_IF_CYCLE)), str(what_if),
                       "-o", str(out / f"diff-opt{WHAT_IF_CYCLE}-predicted")), needs=("predict",)))
    steps.append(Step("report", "write report.html",
                      ("report", *(str(run_folder(out, c)) for c in CYCLES),
                       "-o", str(out / "report.html"), "--title",
                       f"MetaTrace optimisation cycles on {PLATFORM}"),
                      needs=tuple(f"analyze{c}" for c in CYCLES),
                      optional_args=((str(out / "compare" / "compare.json"),
                                      ("--compare", str(out / "compare"))),)))
    return steps


BOX_CHARS = "│╭╮╰╯─┃━┏┓┗┛ "


def failure_line(text: str) -> str:
    """The one line that says why a command failed: our `gridscope: ...` error line, else
    a click/typer error (plain `Error: ...`, or drawn in a box titled Error), else the last
    line of output."""
    lines = [ln.strip(BOX_CHARS) for ln in text.splitlines()]
    lines = [ln.removeprefix("Error: ") for ln in lines]
    lines = [ln for ln in lines if ln and ln != "Error" and not ln.startswith(("Usage:", "Try "))]
    for line in reversed(lines):
        if line.startswith("gridscope: "):
            return line
    return lines[-1] if lines else ""


def run_step(step: Step, logs: Path) -> Outcome:
    import time

    args = list(step.args)
    for path, extra in step.optional_args:
        if Path(path).exists():
            args += extra
    cmd = [sys.executable, "-m", "gridscope", *args]
    log = logs / f"{step.key}.log"
    env = dict(os.environ, **MPI_ENV)
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=STEP_TIMEOUT_S,
                              env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        log.write_text(f"$ {' '.join(cmd)}\n(timed out after {STEP_TIMEOUT_S} s)\n")
        return Outcome(step, "failed", f"timed out after {STEP_TIMEOUT_S} s (log: {log})",
                       time.monotonic() - start)
    log.write_text(f"$ {' '.join(cmd)}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}")
    seconds = time.monotonic() - start
    if proc.returncode == 0:
        return Outcome(step, "ok", seconds=seconds)
    reason = failure_line(proc.stderr) or failure_line(proc.stdout) or f"exit {proc.returncode}"
    if "No such command" in reason:
        reason = f"`gridscope {args[0]}` is not available in this installation"
    return Outcome(step, "failed", f"{reason} (exit {proc.returncode}; log: {log})", seconds)


def blocked_by(step: Step, outcomes: dict[str, Outcome]) -> list[str]:
    """Keys of the steps STEP needs that did not succeed."""
    return [n for n in step.needs if n in outcomes and outcomes[n].status not in ("ok", "omitted")]


def run_demo(out: Path, step_done=lambda outcome: None, step_start=lambda step: None,
             apps: Path | None = None, omit: frozenset[str] = frozenset(),
             full_compare: bool = False) -> list[Outcome]:
    from gridscope import native

    out = Path(out).resolve()
    apps = apps or native.share_dir() / "apps"
    if not (apps / APP / f"{APP}.c").is_file():
        raise GridscopeError(apps / APP, "demo application sources are missing; reinstall "
                                         "gridscope (make install)")
    (out / "bin").mkdir(parents=True, exist_ok=True)
    logs = out / "logs"
    logs.mkdir(exist_ok=True)
    outcomes: dict[str, Outcome] = {}
    for step in plan(out, apps, full_compare):
        missing = blocked_by(step, outcomes)
        step_start(step)
        if step.key in omit:
            result = Outcome(step, "omitted", "left out on request")
        elif missing:
            result = Outcome(step, "skipped", f"needs {', '.join(missing)}")
        else:
            result = run_step(step, logs)
        outcomes[step.key] = result
        step_done(result)
    return list(outcomes.values())


@dataclass
class CycleSummary:
    names: list[str]
    table: list[dict]
    trends: dict[str, bool]
    late_sender_cgiteration_s: float | None = None
    late_sender_cgiteration_pct: float | None = None
    notes: list[str] = field(default_factory=list)


def summarise(out: Path) -> CycleSummary | None:
    """Table 5 across the cycles and the cycle 0 → 1 Late Sender change in cgiteration."""
    from gridscope.diff.runs import load_run
    from gridscope.report.figures import falling, table5

    runs = []
    for c in CYCLES:
        folder = run_folder(out, c)
        if (folder / "summary.json").is_file():
            runs.append((folder.name, load_run(folder).summary))
    if len(runs) < 2:
        return None
    table = table5(runs)
    trends = {row["label"]: falling(row["values"]) for row in table if row["key"] != "total_s"}
    result = CycleSummary([n for n, _ in runs], table, trends)
    diff_json = out / "diff-opt0-opt1" / "diff.json"
    if diff_json.is_file():
        data = json.loads(diff_json.read_text())
        rows = [r for r in data["by_callpath"] if r["pattern"] in ("late_sender", "wrong_order")
                and "/cgiteration/" in f"/{r['callpath']}/"]
        delta = sum(r["seconds"] for r in rows)
        result.late_sender_cgiteration_s = delta
        base = data.get("base_total_time_s") or 0.0
        result.late_sender_cgiteration_pct = 100 * delta / base if base else None
    return result
