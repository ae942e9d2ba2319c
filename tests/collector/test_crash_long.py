"""Crashed, killed and interrupted runs of every size (issue 24): the trace holds every
rank's events up to its end, read by otf2-print, under Open MPI and MPICH.

`apps/crashloop.c` writes about 90 bytes of events per iteration (four local MPI calls)
and calls MPI_Allreduce before every 1000th; rank 2 stops at iteration 15000 of 20000
(1.3 MB of events per rank: beyond the first 1 MiB chunk, and beyond several 256 KiB
chunks with --buffer 64K) while the others wait in that Allreduce, or still in the one
before (rank 2 can leave an Allreduce before the others do)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from gstest import gridscope_env, run_gridscope
from tests.collector import otf2text
from tests.collector.mpi_kits import KITS, MpiKit, require

APP = Path(__file__).resolve().parent / "apps" / "crashloop.c"
N, VICTIM, ITERATIONS, AT, SYNC = 4, 2, 20000, 15000, 1000
CALLS_PER_ITERATION = 4
# --buffer 64K: OTF2's smallest chunk is 256 KiB and the collector keeps two
# (docs/collector.md, "Memory, flushes, crashes"): what a killed rank can lose.
SMALL_BUFFER, SMALL_BUFFER_BYTES = "64K", 2 * 256 * 1024


@pytest.fixture(scope="module", params=sorted(KITS))
def kit(request) -> MpiKit:
    return require(KITS[request.param])


@pytest.fixture(scope="module")
def crashloop(kit, tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp(f"crashloop-{kit.name}") / "crashloop"
    proc = subprocess.run([kit.cc, "-O1", "-pthread", "-o", str(exe), str(APP)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


@dataclass
class RankTrace:
    """One rank's events, counted: local calls, Allreduces entered, how it ends."""
    local_calls: int
    allreduces: int
    program_ends: int
    last_region: str | None  # the last region entered
    evt_bytes: int

    @property
    def iterations(self) -> int:
        return self.local_calls // CALLS_PER_ITERATION


def read_ranks(out: Path, report: str) -> dict[int, RankTrace]:
    """Every rank's events; `report`, what the recording printed, goes with a failure."""
    anchor = out / "traces.otf2"
    check = otf2text.validate(anchor)
    assert check.returncode == 0, check.stderr[-2000:] + "\nthe recording printed: " + report[-3000:]
    enters: dict[int, Counter] = {r: Counter() for r in range(N)}
    last: dict[int, str | None] = {r: None for r in range(N)}
    ends = Counter()
    for line in otf2text.otf2_print(anchor).splitlines():
        f = line.split(None, 3)
        if len(f) < 3 or not f[1].isdigit():
            continue
        loc = int(f[1])
        if f[0] == "ENTER":
            region = f[3].split('"')[1]
            enters[loc][region] += 1
            last[loc] = region
        elif f[0] == "PROGRAM_END":
            ends[loc] += 1
    ranks = {}
    for r in range(N):
        evt = out / "traces" / f"{r}.evt"
        ranks[r] = RankTrace(enters[r]["MPI_Comm_rank"] + enters[r]["MPI_Comm_size"],
                             enters[r]["MPI_Allreduce"], ends[r], last[r],
                             evt.stat().st_size if evt.exists() else 0)
    return ranks


def record(kit: MpiKit, exe: Path, out: Path, mode: str, *flags: str, victim: int = VICTIM,
           at: int = AT, env: dict[str, str] | None = None):
    return run_gridscope("record", "-o", out, *flags, "--", *kit.launch, str(N), exe, mode,
                         str(ITERATIONS), str(at), str(victim), check=False, env=env)


def analyse(trace: Path, out: Path) -> dict:
    """`gridscope analyze` of a partial trace: it succeeds and states the loss."""
    proc = run_gridscope("analyze", trace, "-o", out, "-q", check=False)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert "gridscope: warning:" in proc.stderr
    return summary


def check_never_joined(summary: dict, waiting: list[int]) -> None:
    """The ranks that waited in the Allreduce the ended ranks never joined, and their
    waiting, are named (not dropped)."""
    ops = {op["operation"]: op for op in summary["never_joined"]}
    if not waiting:  # (every survivor was ended before it reached the Allreduce)
        assert "MPI_Allreduce" not in ops
        return
    assert sorted(ops["MPI_Allreduce"]["waiting_ranks"]) == waiting
    assert ops["MPI_Allreduce"]["waiting_s"] > 0
    assert summary["waiting_for_ended_ranks_s"] == pytest.approx(
        sum(op["waiting_s"] for op in summary["never_joined"]))


def waiting_in_allreduce(ranks: dict[int, RankTrace], victim: int) -> list[int]:
    """The survivors ended inside the Allreduce the victim never joined (check_survivor)."""
    return [r for r, t in sorted(ranks.items()) if r != victim and t.last_region == "MPI_Allreduce"]


def check_survivor(r: int, t: RankTrace) -> None:
    """A rank ended by the launcher once the victim died: waiting in the Allreduce at
    iteration AT (or, with rank 2 ahead, in the one before), or still on its way there, in
    a local call after the Allreduce before it (the launcher does not wait for a slow rank:
    on a loaded machine rank 0 was killed at iteration 14520); complete up to its end,
    regions closed."""
    assert t.program_ends == 1, f"rank {r}: {t}"
    assert t.allreduces in (AT // SYNC, AT // SYNC + 1), f"rank {r}: {t}"
    if t.last_region == "MPI_Allreduce":
        assert t.iterations == SYNC * (t.allreduces - 1), f"rank {r}: {t}"
    else:
        assert t.last_region in ("MPI_Comm_rank", "MPI_Comm_size"), f"rank {r}: {t}"
        assert SYNC * (t.allreduces - 1) <= t.iterations < SYNC * t.allreduces, f"rank {r}: {t}"


@pytest.mark.slow
@pytest.mark.parametrize("mode,flags", [("abort", ()), ("segv", ()), ("int", ()),
                                        ("abort", ("--buffer", SMALL_BUFFER))],
                         ids=["abort", "segv", "sigint", "abort-buffer-64K"])
def test_long_crash_keeps_every_event(kit, crashloop, tmp_path, mode, flags):
    out = tmp_path / "trace"
    proc = record(kit, crashloop, out, mode, *flags)
    assert proc.returncode != 0, proc.stderr
    ranks = read_ranks(out, proc.stderr)
    victim = ranks[VICTIM]
    assert victim.program_ends == 1
    assert victim.iterations == AT and victim.allreduces == AT // SYNC, victim
    assert victim.evt_bytes > 1 << 20  # past the first chunk, whatever its size
    if mode == "abort":
        assert victim.last_region == "MPI_Abort"
    for r in set(ranks) - {VICTIM}:
        check_survivor(r, ranks[r])
    # record says what the trace holds, rank by rank, and that nothing was lost
    assert "what the trace holds" in proc.stderr, proc.stderr
    for r in range(N):
        assert f"  rank {r}: " in proc.stderr
    assert "were lost" not in proc.stderr and "start-up definitions kept" not in proc.stderr
    if mode == "abort":
        assert f"rank {VICTIM}: called MPI_Abort" in proc.stderr
    assert not list((out / "traces").glob("*.gsunify*"))
    if mode == "abort" and not flags:
        summary = analyse(out, tmp_path / "analysis")
        assert summary["lost_ranks"] == [] and summary["truncated_ranks"] == []
        early = {e["rank"]: e for e in summary["ended_early_ranks"]}
        assert sorted(early) == list(range(N))
        assert early[VICTIM]["in"] == "MPI_Abort" and early[VICTIM]["exit_status"] == 3
        check_never_joined(summary, waiting_in_allreduce(ranks, VICTIM))


@pytest.mark.slow
@pytest.mark.parametrize("victim", [VICTIM, 0], ids=["rank2", "archive-master"])
def test_killed_rank_loses_at_most_its_buffer(kit, crashloop, tmp_path, victim):
    """SIGKILL leaves no chance to flush: a killed rank keeps what its buffer flushes
    wrote, so it loses at most the buffer. Under Open MPI the others are ended by
    SIGTERM and flush; MPICH's launcher SIGKILLs them too, and they keep what they
    flushed as well. The definitions are repaired also when the killed rank is the
    archive master (rank 0), whose side file carried the run's host names."""
    out = tmp_path / "trace"
    proc = record(kit, crashloop, out, "kill", "--buffer", SMALL_BUFFER, victim=victim)
    assert proc.returncode != 0
    ranks = read_ranks(out, proc.stderr)
    flushed = [t for t in ranks.values() if t.program_ends]
    bytes_per_iteration = max(t.evt_bytes / t.iterations for t in ranks.values()
                              if t.iterations)
    for r, t in ranks.items():
        reached = AT if r == victim else AT - SYNC  # at least this far in the program
        if t.program_ends:
            check_survivor(r, t)
            continue
        assert t.evt_bytes > 0, f"rank {r} kept nothing of its {reached} iterations"
        lost = (reached - t.iterations) * bytes_per_iteration
        assert lost <= SMALL_BUFFER_BYTES, f"rank {r}: lost {lost:.0f} bytes"
        assert f"rank {r}: killed outright; its events up to its last buffer flush" \
            in proc.stderr
    assert ranks[victim].program_ends == 0
    if kit.name == "openmpi":
        assert len(flushed) == N - 1
    # The analysis covers every rank's events, the cut ones named with where they end.
    summary = analyse(out, tmp_path / "analysis")
    cut = sorted(r for r, t in ranks.items() if not t.program_ends)
    assert [t["rank"] for t in summary["truncated_ranks"]] == cut
    assert summary["repaired_regions"]["truncated"] == len(cut)
    assert summary["lost_ranks"] == []
    if kit.name == "openmpi":
        check_never_joined(summary, waiting_in_allreduce(ranks, victim))
        report = tmp_path / "report.html"
        run_gridscope("report", tmp_path / "analysis", "-o", report)
        assert "Partial trace: 1 rank(s) lost events" in report.read_text()
    assert f"events of rank{'s' if len(ranks) - len(flushed) > 1 else ''} " in proc.stderr
    assert "start-up definitions kept" not in proc.stderr


@pytest.mark.slow
def test_exit_without_finalize_is_not_success(kit, crashloop, tmp_path):
    """Every rank calls exit(0) at iteration AT without MPI_Finalize: the trace keeps every
    rank's events, and record does not call that a success. MPICH's launcher kills the
    ranks still running once one exits, so a slow rank ends before AT, as a survivor; one
    killed outright while writing its last events keeps its whole events before the cut
    (its event file sealed by record, seal.h)."""
    out = tmp_path / "trace"
    proc = record(kit, crashloop, out, "exit")
    assert proc.returncode != 0, proc.stderr
    assert "trace written" in proc.stderr
    assert "what the trace holds" in proc.stderr
    ranks = read_ranks(out, proc.stderr)
    for r, t in ranks.items():
        said = [line.strip() for line in proc.stderr.splitlines()
                if line.strip().startswith(f"rank {r}: ")]
        assert len(said) == 1, proc.stderr
        if t.program_ends == 0:
            assert said[0].startswith(f"rank {r}: killed outright;"), proc.stderr
            assert t.evt_bytes > 1 << 20, f"rank {r}: {t}"  # its first chunk, at least
            continue
        assert t.program_ends == 1 and "ended early" in said[0], f"rank {r}: {t}"
        if "(exit status 0)" in said[0] or t.iterations == AT:  # (or killed while exiting)
            assert t.iterations == AT and t.allreduces == AT // SYNC, f"rank {r}: {t}"
        else:
            check_survivor(r, t)
    assert any(t.iterations == AT and t.program_ends for t in ranks.values()), ranks


@pytest.mark.slow
def test_signal_during_an_event_write_waits_for_it(kit, crashloop, tmp_path):
    """SIGTERM that lands while a rank is half-way through writing an event is taken once
    that event is written; the crash flush's records follow it. (The collector's test hook
    raises it inside the rank's first buffer flush, which libotf2 starts from within an
    event write.) Before, the crash flush wrote into the buffer under the half-written
    record, and OTF2 readers misread the rest of the file, or never ended."""
    out = tmp_path / "trace"
    proc = record(kit, crashloop, out, "none", "--buffer", SMALL_BUFFER, at=ITERATIONS,
                  env={"GRIDSCOPE_TEST_SIGNAL_IN_FLUSH": f"{VICTIM}:1"})
    assert proc.returncode != 0, proc.stderr
    ranks = read_ranks(out, proc.stderr)  # every event file's structure is checked first (evtfile.py)
    victim = ranks[VICTIM]
    assert victim.program_ends == 1, victim
    assert victim.last_region in ("MPI_Comm_rank", "MPI_Comm_size"), victim
    # its first flush: after half of its buffer's two chunks at least, before the end
    assert SMALL_BUFFER_BYTES // 2 < victim.evt_bytes and victim.iterations < ITERATIONS, victim
    ended = [line for line in proc.stderr.splitlines()
             if line.strip().startswith(f"rank {VICTIM}: ended early")]
    assert len(ended) == 1 and "(ended by SIGTERM)" in ended[0], proc.stderr
    # The event being written is there, and the crash flush closes its region (or it
    # was a Leave): every Enter has its Leave, none comes without its Enter.
    otf2text.check_nesting(otf2text.events(out / "traces.otf2")[VICTIM])


@pytest.mark.slow
def test_exit_on_another_thread_waits_for_the_event_being_written(kit, crashloop, tmp_path):
    """A thread of rank 2 calls exit(5) while its main thread goes on writing events (local
    MPI calls): the main thread does the crash flush once its current event is written, so
    the flush never writes into the buffer beside it. Before, the flush ran at once on its
    own thread, and its records were interleaved with the main thread's."""
    out = tmp_path / "trace"
    proc = record(kit, crashloop, out, "thread-exit")
    assert proc.returncode != 0, proc.stderr
    ranks = read_ranks(out, proc.stderr)  # every event file's structure is checked first (evtfile.py)
    victim = ranks[VICTIM]
    assert victim.program_ends == 1, victim
    assert victim.iterations >= AT, victim
    ended = [line for line in proc.stderr.splitlines()
             if line.strip().startswith(f"rank {VICTIM}: ended early")]
    assert len(ended) == 1 and "(exit status 5)" in ended[0], proc.stderr
    otf2text.check_nesting(otf2text.events(out / "traces.otf2")[VICTIM])


@pytest.mark.slow
def test_ranks_left_waiting_in_finalize_keep_their_events(kit, crashloop, tmp_path):
    """Rank 2 exits from a thread, and the exit lingers until its main thread (measuring no
    more after its flush) has reached MPI_Finalize: the other ranks reach MPI_Finalize too,
    where the collector's own collectives wait for rank 2 until the launcher ends them. Their
    crash flush writes their events (before, none were kept: "killed outright", what CI saw
    of test_exit_on_another_thread... when rank 2's exiting thread came late)."""
    out = tmp_path / "trace"
    proc = record(kit, crashloop, out, "thread-exit-finalize")
    assert proc.returncode != 0, proc.stderr
    assert "were lost" not in proc.stderr, proc.stderr
    ranks = read_ranks(out, proc.stderr)
    events = otf2text.events(out / "traces.otf2")
    for r, t in ranks.items():
        assert t.program_ends == 1, f"rank {r}: {t}"
        otf2text.check_nesting(events[r])
    if kit.name == "openmpi":  # (MPICH's ranks flush at rank 2's request, before they get there)
        for r in (0, 1, 3):
            assert ranks[r].iterations == ITERATIONS and ranks[r].last_region == "MPI_Finalize", f"rank {r}: {ranks[r]}"


@pytest.mark.slow
def test_ctrl_c_keeps_every_event(kit, crashloop, tmp_path):
    """Ctrl-C on `gridscope record` (SIGINT to its process group: record, the launcher and,
    through it, the ranks) once every rank is measured: every rank flushes."""
    out = tmp_path / "trace"
    cmd = [sys.executable, "-m", "gridscope", "record", "-o", str(out), "--", *kit.launch,
           str(N), str(crashloop), "run", str(10 ** 9), "-1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=gridscope_env(), start_new_session=True)
    for line in proc.stdout:  # waits for the program, however loaded the machine is
        if "all ranks running" in line:
            break
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate()
    assert proc.returncode != 0, stderr
    assert "what the trace holds" in stderr and "were lost" not in stderr, stderr
    ranks = read_ranks(out, stderr)
    for r, t in ranks.items():
        assert t.program_ends == 1, f"rank {r}: {t}"
        assert t.allreduces >= 1 and t.iterations >= SYNC * (t.allreduces - 1), f"rank {r}: {t}"


def test_repair_tool_says_where_ranks_end_without_side_files(tmp_path):
    """--ends with nothing to repair and no readable trace: one line, exit 1, no crash."""
    from gridscope import native

    (tmp_path / "traces").mkdir()
    proc = subprocess.run([str(native.binary("gridscope-trace-repair")), "--ends",
                           str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"gridscope: {tmp_path}: cannot repair the definitions: "
                                   "cannot read the trace to tell where its ranks end")
