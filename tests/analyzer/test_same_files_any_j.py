"""Every output file of `gridscope analyze` is byte for byte the same for any -j
(summary.json without its `analysis` block): the canonical wait-state order of
docs/analyzer.md, severities summed in an order no -j changes, Cube member times from the
trace. That includes the root-cause results (docs/root-causes.md): summary.json's
root_causes / critical_path / wait_classes / cause_pairs, the delay, wait-class and
critical-path metrics of the Cube file, and any further file the analysis writes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

from analyzer_helpers import SPECS, values
from gridscope.analysis import names as N

# Specs whose analysis finds no wait state at all (checked below, so the list cannot go stale
# silently): every other spec must have some.
NO_WAITS = {"no_mpi", "unmatched"}
# Bad input on purpose (test_repair.py checks their errors at -j 1 and -j 2).
REFUSED = {"misnested_mpi", "stray_mpi_leave"}
WAIT_SPECS = sorted(p.stem for p in SPECS.glob("*.spec") if p.stem not in NO_WAITS | REFUSED)
SCOREP_MAPS = {
    "dorsal-mpi_pthread_hello_world": {"epyc": ["epyc2"], "desktop": ["arnaud-Desktop"]},
    "dorsal-mpi_allreduce": {"A": ["rank:0-3"], "B": ["rank:4-7"]},
    "dorsal-mpi_gather": {"A": ["rank:0-1"], "B": ["rank:2-3"]},
    "pipit-ping-pong": {"A": ["rank:0"], "B": ["rank:1"]},
}
SCOREP = ["dorsal-mpi_allreduce", "dorsal-mpi_bsend", "dorsal-mpi_gather", "dorsal-mpi_pthread_hello_world",
          "dorsal-mpi_ssend_irecv", "pipit-ping-pong"]


def analyse_to(trace: Path, out: Path, jobs: int, **options) -> Path:
    from gridscope.analysis.driver import AnalyzeOptions, analyze

    analyze(AnalyzeOptions(trace, out, jobs, allow_unmatched=True, quiet=True, **options))
    return out


# summary.json keys of the root-cause analysis, on by default (docs/root-causes.md)
ROOT_CAUSE_KEYS = ("root_causes", "critical_path", "wait_classes")


def output_bytes(out: Path) -> dict[str, bytes]:
    """Every file of the analysis folder (a new output file is compared without a change
    here); summary.json without its `analysis` block."""
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}
    assert {N.SUMMARY_FILE, N.PROFILE_FILE} <= set(files)
    summary = json.loads(files[N.SUMMARY_FILE])
    files[N.SUMMARY_FILE] = json.dumps(values(summary), indent=1).encode()
    return files


def wait_rows(out: Path) -> int:
    with pa.memory_map(str(out / N.WAITSTATES_FILE)) as source:
        return pa.ipc.open_file(source).read_all().num_rows


def assert_same_for_any_j(trace: Path, tmp_path: Path, ranks: int, **options) -> Path:
    """Analyses TRACE at -j 1, 2, 3 (and 4 with at least 4 ranks); returns the -j 1 folder."""
    one = analyse_to(trace, tmp_path / "j1", 1, **options)
    assert_root_causes_written(one)
    expected = output_bytes(one)
    for jobs in (2, 3, 4) if ranks >= 4 else (2, 3):
        got = output_bytes(analyse_to(trace, tmp_path / f"j{jobs}", jobs, **options))
        assert sorted(got) == sorted(expected), f"-j {jobs} wrote other files than -j 1"
        for name, data in expected.items():
            assert got[name] == data, f"{name} differs between -j 1 and -j {jobs}"
    return one


def assert_root_causes_written(out: Path) -> None:
    """The root-cause results are part of what is compared: every trace with events has a
    critical path, so its keys cannot be missing or empty without this failing."""
    summary = json.loads((out / N.SUMMARY_FILE).read_text())
    for key in ROOT_CAUSE_KEYS:
        assert key in summary, f"summary.json has no {key}"
    if summary["thread_locations"]["locations"]:  # threads that call MPI: no root causes, said so
        assert summary[N.ROOT_CAUSE_ANALYSIS]["skipped_for_threads"] is True
        assert summary["critical_path"] == []
        return
    assert summary[N.ROOT_CAUSE_ANALYSIS]["skipped_for_threads"] is False
    assert summary["critical_path"], "empty critical path"
    assert sum(row["seconds"] for row in summary["critical_path"]) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", WAIT_SPECS)
def test_specs_with_wait_states(name, make_trace, tmp_path):
    options = {"time_correct": True} if name.startswith("clc_") else {}
    trace = make_trace(name)
    ranks = sum(1 for line in (SPECS / f"{name}.spec").read_text().splitlines() if line.startswith("rank "))
    one = assert_same_for_any_j(trace, tmp_path, ranks, **options)
    assert wait_rows(one) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", SCOREP)
@pytest.mark.parametrize("mapped", [False, True], ids=["plain", "map"])
def test_scorep_traces(name, mapped, scorep_traces, tmp_path):
    if mapped and name not in SCOREP_MAPS:
        pytest.skip("no metahost map for this trace (../shared/testdata/scorep/README.md)")
    options = {}
    if mapped:
        options["metahosts"] = tmp_path / "map.json"
        options["metahosts"].write_text(json.dumps(SCOREP_MAPS[name]))
    ranks = json.loads((analyse_to(scorep_traces / name, tmp_path / "probe", 1) / N.SUMMARY_FILE).read_text())["ranks"]
    assert_same_for_any_j(scorep_traces / name, tmp_path, ranks, **options)


@pytest.mark.slow
def test_synthetic_trace_in_small_batches(tracegen, tmp_path):
    """6 ranks on two metahosts: every -j cuts the rows between its processes elsewhere, and
    batches of 400 rows span those cuts (its Waitalls have no Late Receiver rows since they
    are charged as scout does: about 1400 rows)."""
    trace = tmp_path / "bench"
    subprocess.run([str(tracegen), "--bench", "6", "300", str(trace)], check=True)
    one = assert_same_for_any_j(trace, tmp_path, 6, wait_batch_rows=400)
    rows = wait_rows(one)
    assert rows > 3 * 400
    with pa.memory_map(str(one / N.WAITSTATES_FILE)) as source:
        reader = pa.ipc.open_file(source)
        sizes = [reader.get_batch(i).num_rows for i in range(reader.num_record_batches)]
    assert sizes == [400] * (rows // 400) + ([rows % 400] if rows % 400 else [])


def test_collective_results_in_the_members_event_order(make_trace, tmp_path):
    """specs/coll_order.spec: rank 2's barrier waits are charged in its event order (x, y,
    x), not grouped by communicator or computing process, so the sum is (a + b) + c."""
    from gridscope.analysis.waitstates import read_waitstates

    out = analyse_to(make_trace("coll_order"), tmp_path / "j1", 1)
    summary = json.loads((out / N.SUMMARY_FILE).read_text())
    a, b, c = 1e-6, 1e-6, 11e-6
    assert (a + b) + c != (a + c) + b  # the two orders differ in the last bit
    assert summary["patterns"]["wait_at_barrier"] == {"grid": 0.0, "local": (a + b) + c}
    # only rank 2 ever waits (the others begin last, and all members leave together)
    waits = read_waitstates(out)
    assert list(waits[N.RANK]) == [2, 2, 2]
    assert list(waits[N.START_S].round(9)) == [100e-6, 200e-6, 300e-6]
    assert list(waits[N.SEVERITY_S].round(9)) == [a, b, c]


# summary.json keys that come from the replay alone: the same whether root causes follow or not
REPLAY_KEYS = ("patterns", "by_callpath", "by_metahost", "p2p", "collectives", "incomplete_collectives",
               "clock_violations", "messages", "unmatched_messages")


@pytest.mark.slow
@pytest.mark.parametrize("name", WAIT_SPECS)
def test_without_root_causes_the_wait_states_are_the_same(name, make_trace, tmp_path):
    """Without root causes the blocking collectives take their own path (per-instance
    summaries exchanged between the processes, not every member's record): their wait
    states, severities and counts must be those of the path root causes use."""
    options = {"time_correct": True} if name.startswith("clc_") else {}
    trace = make_trace(name)
    with_rc = analyse_to(trace, tmp_path / "rc", 1, **options)
    expected = json.loads((with_rc / N.SUMMARY_FILE).read_text())
    for jobs in (1, 2, 3):
        out = analyse_to(trace, tmp_path / f"off-j{jobs}", jobs, root_causes=False, **options)
        assert (out / N.WAITSTATES_FILE).read_bytes() == (with_rc / N.WAITSTATES_FILE).read_bytes(), \
            f"-j {jobs}: other wait states without root causes"
        got = json.loads((out / N.SUMMARY_FILE).read_text())
        for key in REPLAY_KEYS:
            assert got[key] == expected[key], f"-j {jobs}: {key} differs without root causes"
