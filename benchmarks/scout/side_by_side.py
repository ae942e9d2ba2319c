"""Side by side: Scalasca's trace analyzer scout and `gridscope analyze` on the same traces.

For each trace, runs scout (`scout.mpi` under mpirun, one process per trace rank) and
`gridscope analyze`, reads both .cubex files with gridscope's Cube reader, maps the metrics
(scout's unique names to ours, table METRICS below) and compares their totals over all call
paths and ranks, plus the largest difference of one (call path, rank) cell. Prints a table
per trace and writes a markdown report.

    python benchmarks/scout/side_by_side.py --scout /work/scout-inst/bin \\
        --markdown /tmp/sbs.md                       # default traces (see --help)
    python benchmarks/scout/side_by_side.py --scout ... --trace late_sender --trace /path/run

Traces: a spec name from tests/analyzer/specs (written with gs-tracegen), or a Score-P
trace directory (holding traces.otf2; linked into the scratch folder, since scout writes
its report next to the trace). Run with the gridscope build on PATH / GRIDSCOPE_NATIVE_DIR.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "tests" / "analyzer" / "specs"
SCOREP = REPO.parent / "shared" / "testdata" / "scorep"
DEFAULT_SPECS = ("lr_waitall", "lr_ibsend", "rc_lr_completion", "rc_scout", "rc_nxn_group",
                 "rc_nbc", "rc_sync_points", "rc_chain", "rc_chain_barrier", "barrier", "nxn", "one_to_n", "late_sender",
                 "late_receiver", "wrong_order")

# scout metric -> the gridscope metrics whose inclusive values add up to it.
# Ours split each pattern by link (`_local`, `_grid`, ...): inclusive sums hold them.
# Scout's own report (scout.cubex) holds the measured patterns only; `scalasca -examine`
# derives the rest with the CubePL formulas of share/scout.spec.in, which the scout side
# below repeats as "a+b-c" (e.g. mpi_wait_direct_latesender = mpi_latesender -
# mpi_wait_indirect_latesender). Aggregates built there from region names (mpi,
# mpi_communication, ...) and the derived critical-path imbalance are left out.
# Scout classifies only point-to-point wait states (its collective classes are commented
# out in Waitstates.MPI.pattern), so its class totals compare with our LS + LR rows.
LS, LR = "mpi_latesender", "mpi_latereceiver"
METRICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("time", ("time",)),
    ("visits", ("visits",)),
    ("mpi_barrier_wait", ("wait_at_barrier",)),
    ("mpi_barrier_completion", ("barrier_completion",)),
    ("mpi_latesender", ("late_sender",)),
    ("mpi_latesender_wo", ("wrong_order",)),
    ("mpi_latereceiver", ("late_receiver",)),
    ("mpi_earlyreduce", ("early_reduce",)),
    ("mpi_earlyscan", ("early_scan",)),
    ("mpi_latebroadcast", ("late_broadcast",)),
    ("mpi_wait_nxn", ("wait_at_nxn",)),
    ("mpi_nxn_completion", ("nxn_completion",)),
    ("mpi_init_completion", ("init_completion",)),
    ("mpi_finalize_wait", ("finalize_wait",)),
    ("bytes_sent+bytes_cout", ("bytes_sent",)),      # ours count collective bytes too,
    ("bytes_rcvd+bytes_cin", ("bytes_received",)),   # as Score-P's profile does
    # delay costs: scout's delay_X (short term) and delay_X_longterm against ours
    *((f"delay_{scout}{term}", (f"delay_{ours}_{mine}",))
      for scout, ours in (("latesender", "late_sender"), ("latereceiver", "late_receiver"),
                          ("barrier", "barrier"), ("n2n", "nxn"), ("12n", "late_broadcast"),
                          ("n21", "early_reduce"))
      for term, mine in (("", "short"), ("_longterm", "long"))),
    (f"{LS}-mpi_wait_indirect_latesender", ("wait_direct_late_sender",)),
    (f"{LR}-mpi_wait_indirect_latereceiver", ("wait_direct_late_receiver",)),
    ("mpi_wait_indirect_latesender", ("wait_indirect_late_sender",)),
    ("mpi_wait_indirect_latereceiver", ("wait_indirect_late_receiver",)),
    ("mpi_wait_propagating_ls", ("wait_propagating_late_sender",)),
    ("mpi_wait_propagating_lr", ("wait_propagating_late_receiver",)),
    (f"{LS}-mpi_wait_propagating_ls", ("wait_terminal_late_sender",)),
    (f"{LR}-mpi_wait_propagating_lr", ("wait_terminal_late_receiver",)),
    ("critical_path", ("critical_path",)),    # ours holds its imbalance as a child
    ("critical_path_activities", ("critical_path_activities",)),
    ("critical_imbalance_impact", ("critical_imbalance_impact",)),
    ("non_critical_path_activities", ("non_critical_path_activities",)),
)
REL_TOL = 1e-6      # values agree within this relative difference ...
ABS_TOL = 1e-9      # ... or this absolute one (1 ns, one tick of the traces' clocks)


class Failure(Exception):
    """A step failed; the message names the trace and the cause."""


@dataclass
class Row:
    scout_name: str
    ours: tuple[str, ...]
    scout: float
    gridscope: float
    cell_diff: float  # largest |scout - ours| of one (call path, rank) cell

    @property
    def rel(self) -> float:
        scale = max(abs(self.scout), abs(self.gridscope))
        return 0.0 if scale == 0 else abs(self.gridscope - self.scout) / scale

    def agrees(self, value_a: float | None = None, value_b: float | None = None) -> bool:
        a = self.scout if value_a is None else value_a
        b = self.gridscope if value_b is None else value_b
        return abs(a - b) <= max(ABS_TOL, REL_TOL * max(abs(a), abs(b)))

    @property
    def totals_agree(self) -> bool:
        return self.agrees()

    @property
    def cells_agree(self) -> bool:
        return self.agrees(0.0, self.cell_diff)


def terms(expression: str) -> list[tuple[float, str]]:
    """"a+b-c" -> [(1, a), (1, b), (-1, c)]."""
    return [(-1.0 if sign == "-" else 1.0, name)
            for sign, name in re.findall(r"([+-]?)([a-z0-9_]+)", expression)]


def inclusive_cells(exp, names) -> dict[tuple[str, int], float]:
    """(call path, rank) -> the signed sum of the inclusive values (metric tree) of NAMES,
    given as metric names (sign +) or (sign, name) pairs."""
    from gridscope.cube.model import walk_metrics

    out: dict[tuple[str, int], float] = {}
    for sign, name in ((1.0, n) if isinstance(n, str) else n for n in names):
        wanted: set[str] = set()
        for metric, _ in walk_metrics(exp.metrics):
            if metric.uniq_name == name:
                wanted.update(m.uniq_name for m, _ in walk_metrics((metric,)))
        sev = exp.severities[exp.severities["metric"].isin(wanted)]
        for key, value in sev.groupby(["callpath", "rank"])["value"].sum().items():
            out[key] = out.get(key, 0.0) + sign * float(value)
    return out


def compare(scout_cube: Path, ours_cube: Path) -> tuple[list[Row], list[str], list[str]]:
    """Rows for every mapped metric, and the metrics only one side holds non-zero values of."""
    from gridscope.cube.reader import read_cubex
    from gridscope.cube.model import walk_metrics

    scout, ours = read_cubex(scout_cube), read_cubex(ours_cube)
    scout_names = {m.uniq_name for m, _ in walk_metrics(scout.metrics)}
    rows = []
    for scout_name, our_names in METRICS:
        scout_terms = terms(scout_name)
        if not {name for _, name in scout_terms} & scout_names:
            continue  # a metric this scout does not measure (e.g. built without MPI)
        s_cells = inclusive_cells(scout, scout_terms)
        g_cells = inclusive_cells(ours, our_names)
        keys = set(s_cells) | set(g_cells)
        cell = max((abs(s_cells.get(k, 0.0) - g_cells.get(k, 0.0)) for k in keys), default=0.0)
        rows.append(Row(scout_name, our_names, sum(s_cells.values()), sum(g_cells.values()), cell))
    mapped_scout = {name for s, _ in METRICS for _, name in terms(s)}
    mapped_ours = {n for _, ours_names in METRICS for n in ours_names}
    only_scout = _nonzero_unmapped(scout, mapped_scout)
    only_ours = _nonzero_unmapped(ours, mapped_ours, skip_suffixes=("_grid", "_local", "_wan"))
    return rows, only_scout, only_ours


def _nonzero_unmapped(exp, mapped: set[str], skip_suffixes: tuple[str, ...] = ()) -> list[str]:
    """Metrics outside every mapped subtree with a non-zero value of their own (their link
    split children, names ending in SKIP_SUFFIXES, folded into them)."""
    from gridscope.cube.model import walk_metrics

    covered: set[str] = set()
    for metric, _ in walk_metrics(exp.metrics):
        if metric.uniq_name in mapped:
            covered.update(m.uniq_name for m, _ in walk_metrics((metric,)))
    totals = exp.severities.groupby("metric")["value"].sum()
    out = []
    for metric, _ in walk_metrics(exp.metrics):
        name = metric.uniq_name
        if name in covered or name.endswith(skip_suffixes):
            continue
        split = [c.uniq_name for c in metric.children if c.uniq_name.endswith(skip_suffixes)]
        value = float(sum(totals.get(n, 0.0) for n in (name, *split)))
        if abs(value) > ABS_TOL:
            out.append(f"{name}={value:.9g}")
    return out


def run(cmd: list[str], what: str, env=None) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        tail = (done.stderr.strip() or done.stdout.strip()).splitlines()[-3:]
        raise Failure(f"{what}: exit {done.returncode}: {' | '.join(tail)}")
    return done


ENTER = re.compile(r"^(\d+) (\S+) enter \S+$")
LEAVE = re.compile(r"^(\d+) (\S+) leave$")


def bracketed_spec(spec: Path, out: Path) -> Path:
    """SPEC with a zero-length MPI_Init after each rank's first enter and a zero-length
    MPI_Finalize before its last leave, when it has no MPI_Init: scout's root-cause analysis
    needs the global synchronisation of MPI_Init (SynchpointHandler.cpp,
    findPreviousMpiSynchpoint asserts there is an earlier one). Zero length: no wait, no
    delay, no time, so both tools see the spec's own waits unchanged."""
    lines = spec.read_text().splitlines()
    if any(" MPI_Init" in line for line in lines if not line.startswith("#")):
        return spec
    first_enter: dict[str, int] = {}
    last_leave: dict[str, int] = {}
    for n, line in enumerate(lines):
        if (m := ENTER.match(line)) and m[1] not in first_enter:
            first_enter[m[1]] = n
        if m := LEAVE.match(line):
            last_leave[m[1]] = n
    inserts: dict[int, list[str]] = {}
    for rank, n in first_enter.items():
        time = ENTER.match(lines[n])[2]
        inserts.setdefault(n + 1, []).append(f"{rank} {time} {time} region MPI_Init")
    for rank, n in last_leave.items():
        time = LEAVE.match(lines[n])[2]
        inserts.setdefault(n, []).append(f"{rank} {time} {time} region MPI_Finalize")
    body = []
    for n, line in enumerate(lines + [""]):
        body += inserts.get(n, [])
        body.append(line)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# generated by benchmarks/scout/side_by_side.py from " + spec.name
                   + ": zero-length MPI_Init/MPI_Finalize added\n" + "\n".join(body))
    return out


def prepare_trace(name: str, work: Path, tracegen: str) -> tuple[str, Path]:
    """A scratch copy of the trace that scout may write its report next to."""
    spec = SPECS / f"{name}.spec"
    source = Path(name)
    if spec.is_file():
        trace = work / "traces" / name
        shutil.rmtree(trace, ignore_errors=True)
        spec = bracketed_spec(spec, work / "specs" / spec.name)
        run([tracegen, str(spec), str(trace)], f"{spec}: gs-tracegen")
        return f"spec/{name}", trace
    if not (source / "traces.otf2").is_file():
        raise Failure(f"{name}: neither a spec in {SPECS} nor a trace directory with traces.otf2")
    trace = work / "traces" / source.name
    shutil.rmtree(trace, ignore_errors=True)
    trace.mkdir(parents=True)
    for entry in ("traces.otf2", "traces.def", "traces"):  # links: the trace stays read-only
        if (source / entry).exists():
            (trace / entry).symlink_to((source / entry).resolve())
    return f"scorep/{source.name}", trace


def analyse(label: str, trace: Path, work: Path, scout_bin: Path) -> tuple[Path, Path]:
    from gridscope.cube.reader import read_cubex

    out = work / "out" / label.replace("/", "_")
    shutil.rmtree(out, ignore_errors=True)
    run(["gridscope", "analyze", str(trace), "-o", str(out / "gridscope"), "-q", "--no-gains"],
        f"{label}: gridscope analyze")
    ours = out / "gridscope" / "profile.cubex"
    ranks = int(read_cubex(ours).locations["rank"].nunique())
    (trace / "scout.cubex").unlink(missing_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    done = run(["mpirun", "-np", str(ranks), "--oversubscribe", str(scout_bin / "scout.mpi"),
                str(trace / "traces.otf2")], f"{label}: scout.mpi on {ranks} ranks", env)
    (out / "scout.log").write_text(done.stdout + done.stderr)
    if not (trace / "scout.cubex").is_file():
        raise Failure(f"{label}: scout wrote no scout.cubex (see {out / 'scout.log'})")
    scout = out / "scout.cubex"
    shutil.move(str(trace / "scout.cubex"), scout)
    return scout, ours


def fmt(value: float) -> str:
    return f"{value:.9g}"


def text_table(label: str, rows: list[Row]) -> str:
    lines = [f"== {label}", f"{'metric (scout)':46} {'scout':>14} {'gridscope':>14} "
             f"{'rel.diff':>9} {'max cell':>11}"]
    for r in rows:
        if r.scout == 0 and r.gridscope == 0:
            continue
        mark = "" if r.totals_agree and r.cells_agree else "  <-- differs"
        lines.append(f"{r.scout_name:46} {fmt(r.scout):>14} {fmt(r.gridscope):>14} "
                     f"{r.rel:9.2e} {r.cell_diff:11.3g}{mark}")
    return "\n".join(lines)


def markdown(results: dict[str, tuple], scout_version: str, command: str) -> str:
    out = ["<!-- generated by benchmarks/scout/side_by_side.py; do not edit by hand -->",
           f"Command: `{command}`", "", f"scout: {scout_version}", "",
           f"Agreement: |scout − gridscope| ≤ max({ABS_TOL:g}, {REL_TOL:g} × larger value), "
           "for the total over all call paths and ranks and for every (call path, rank) cell.",
           "", "## Differences (metric × trace)", "",
           "| trace | metric (scout / gridscope) | scout | gridscope | rel. diff | max cell diff |",
           "|---|---|---:|---:|---:|---:|"]
    agreeing: dict[str, int] = {}
    for label, result in results.items():
        if isinstance(result, str):
            continue
        rows, _, _ = result
        for r in rows:
            if r.scout == 0 and r.gridscope == 0:
                continue
            if r.totals_agree and r.cells_agree:
                agreeing[label] = agreeing.get(label, 0) + 1
                continue
            out.append(f"| {label} | {r.scout_name} / {'+'.join(r.ours)} | {fmt(r.scout)} | "
                       f"{fmt(r.gridscope)} | {r.rel:.2e} | {r.cell_diff:.3g} |")
    out += ["", "## Per trace", ""]
    for label, result in results.items():
        if isinstance(result, str):
            out += [f"### {label}", "", f"not compared: {result}", ""]
            continue
        rows, only_scout, only_ours = result
        nonzero = [r for r in rows if r.scout != 0 or r.gridscope != 0]
        out += [f"### {label}", "",
                f"{agreeing.get(label, 0)} of {len(nonzero)} non-zero metrics agree.", "",
                "| metric (scout) | scout | gridscope | rel. diff | max cell diff | |",
                "|---|---:|---:|---:|---:|---|"]
        for r in nonzero:
            ok = "ok" if r.totals_agree and r.cells_agree else (
                "cells differ" if r.totals_agree else "**differs**")
            out.append(f"| {r.scout_name} | {fmt(r.scout)} | {fmt(r.gridscope)} | {r.rel:.2e} "
                       f"| {r.cell_diff:.3g} | {ok} |")
        if only_scout:
            out.append(f"\nscout only (not mapped): {', '.join(only_scout)}")
        if only_ours:
            out.append(f"\ngridscope only (not mapped): {', '.join(only_ours)}")
        out.append("")
    return "\n".join(out) + "\n"


def default_traces() -> list[str]:
    scorep = sorted(str(p.parent) for p in SCOREP.glob("*/traces.otf2"))
    return [*scorep, *DEFAULT_SPECS]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Default traces: the Score-P traces in " + str(SCOREP) + " and the specs "
               + ", ".join(DEFAULT_SPECS) + ".")
    parser.add_argument("--scout", type=Path, required=True,
                        help="folder holding scout.mpi (Scalasca's bin folder)")
    parser.add_argument("--trace", action="append", default=[],
                        help="spec name or Score-P trace directory; repeatable")
    parser.add_argument("--all-specs", action="store_true",
                        help="add every spec in tests/analyzer/specs")
    parser.add_argument("--work", type=Path, default=Path("/tmp/gridscope-scout-side-by-side"),
                        help="scratch folder (default: %(default)s)")
    parser.add_argument("--markdown", type=Path, help="write the markdown report here")
    args = parser.parse_args()
    if not (args.scout / "scout.mpi").is_file():
        print(f"{args.scout}: no scout.mpi in this folder", file=sys.stderr)
        return 2
    from gridscope import native
    from gridscope.errors import GridscopeError

    tracegen = str(native.binary("gs-tracegen"))
    traces = args.trace or default_traces()
    if args.all_specs:
        traces += [p.stem for p in sorted(SPECS.glob("*.spec")) if p.stem not in traces]
    version = "unknown"
    results: dict[str, tuple | str] = {}
    for name in traces:
        label = name
        try:
            label, trace = prepare_trace(name, args.work, tracegen)
            scout, ours = analyse(label, trace, args.work, args.scout)
            results[label] = compare(scout, ours)
            banner = [line for line in (scout.parent / "scout.log").read_text().splitlines()
                      if line.startswith("SCOUT")]
            version = banner[0].strip() if banner else version
            print(text_table(label, results[label][0]), flush=True)
        except (Failure, GridscopeError) as err:
            results[label] = str(err)
            print(f"== {label}\nnot compared: {err}", flush=True)
    if args.markdown:
        command = "python benchmarks/scout/side_by_side.py " + " ".join(sys.argv[1:])
        args.markdown.write_text(markdown(results, version, command))
    return 1 if any(isinstance(r, str) for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
