"""Validate what is read (issue 24 item 3): each damage is refused with one line naming the
file, rank and time, or analysed with a warning that counts what it affected; never an
impossible figure."""

from __future__ import annotations

import re

import pytest

from faultkit import analyze, check_analysis, make_trace, ring_spec, rng, set_timestamp, timestamps

SEC = 1_000_000  # gs-tracegen's ticks per second


@pytest.fixture
def ring(tmp_path):
    return make_trace(ring_spec(rng("ring")), tmp_path / "ring")


def test_the_undamaged_trace_analyses_cleanly(ring, tmp_path):
    done = analyze(ring, tmp_path / "out")
    check_analysis(done)
    assert done.proc.returncode == 0 and not done.lines, done.why()
    s = done.summary()
    assert s["collectives"] == 6 and s["incomplete_collectives"] == 0 and s["byte_mismatches"] == 0


def test_a_timestamp_moved_back_is_refused_naming_file_rank_and_time(ring, tmp_path):
    # Before: "MPI -1e-05 s (-2.2 %)" and exit 0.
    evt = ring / "traces" / "1.evt"
    stamps = timestamps(evt, 0, 10 * SEC)
    offset, value = stamps[len(stamps) // 2]
    set_timestamp(evt, offset, value - 10 * SEC if value > 10 * SEC else 0)
    done = analyze(ring, tmp_path / "out")
    done.refused(where=evt, problem="time runs backwards on rank 1 at ")
    assert re.search(r"the previous event is at \d+\.\d{6} s", done.lines[0]), done.why()


@pytest.mark.parametrize("byte", [3, 4, 5])
def test_a_flipped_high_timestamp_byte_is_refused(ring, tmp_path, byte):
    # Before: MPI times of 10^5 s in a run of microseconds, exit 0.
    evt = ring / "traces" / "0.evt"
    offset, value = timestamps(evt, 0, 10 * SEC)[-2]  # late: nothing after it may go unchecked
    set_timestamp(evt, offset, value ^ (0x80 << (8 * byte)))
    done = analyze(ring, tmp_path / "out")
    done.refused(where=evt, problem="on rank 0 at ")
    assert "runs backwards" in done.lines[0] or "out of range" in done.lines[0], done.why()


def _with_offsets(tmp_path, first: int, second: int):
    spec = ring_spec(rng("offsets")).replace("rank 2 b n2\n", f"rank 2 b n2\noffset 1 0 {first}\noffset 1 2000 {second}\n")
    return make_trace(spec, tmp_path / "offsets")


@pytest.mark.parametrize(("first", "second", "problem"), [
    (5_000, 1_000, "ClockOffsets 1 and 2 move time backwards"),      # 5000 at 0, 3000 at 2000
    (50, -15_600_000, "outside the trace's span"),                   # before: total time -15.6 s
    (50, 90_000 * SEC, "outside the trace's span"),                  # a day ahead
])
def test_damaged_clock_offsets_are_refused_naming_the_definitions_file(tmp_path, first, second, problem):
    trace = _with_offsets(tmp_path, first, second)
    done = analyze(trace, tmp_path / "out")
    done.refused(where=trace / "traces" / "1.def", problem=problem)


def test_good_clock_offsets_still_analyse(tmp_path):
    done = analyze(_with_offsets(tmp_path, 50, 80), tmp_path / "out")
    check_analysis(done)
    assert done.proc.returncode == 0 and done.summary()["analysis"]["clock_offset_locations"] == 1


def test_a_receive_with_another_byte_count_is_counted_and_warned(tmp_path):
    # Before: not checked; the pair's rate came from the damaged count (7.6e23 B/s).
    trace = make_trace(ring_spec(rng("bytes"), wrong_bytes=(1, 2, 10**15)), tmp_path / "bytes")
    done = analyze(trace, tmp_path / "out")
    check_analysis(done)
    assert done.proc.returncode == 0, done.why()
    s = done.summary()
    assert s["byte_mismatches"] == 1
    assert "1 of 18 received messages have a byte count that differs" in done.proc.stderr
    assert sum(p["bytes"] for p in s["p2p"]) == 18 * 64  # the smaller count: what was sent


def test_a_duplicated_barrier_on_one_rank_is_counted_and_warned(tmp_path):
    # Before: the instances after it were dropped silently (only a summary.json field).
    trace = make_trace(ring_spec(rng("dup"), extra_barrier=(1, 1)), tmp_path / "dup")
    done = analyze(trace, tmp_path / "out")
    check_analysis(done)
    s = done.summary()
    # rank 1's calls from the extra one on pair with the others' next ones: instances 0 and
    # 1 match, rank 1's 7th call has no partners (each instance counts once)
    assert s["incomplete_collectives"] == 1 and s["collectives"] == 6
    assert "1 of 7 collective instances could not be matched" in done.proc.stderr


def test_a_time_correction_that_does_not_converge_says_so(tmp_path):
    # Two ranks each receive the other's message before it was sent: a cycle of waits.
    spec = "\n".join(["rank 0 a n0", "rank 1 b n1", "0 0 enter main", "1 0 enter main",
                      "0 10 20 recv MPI_Recv 1 0 8", "1 10 20 recv MPI_Recv 0 0 8",
                      "0 30 35 send MPI_Send 1 0 8", "1 30 35 send MPI_Send 0 0 8", "0 50 leave", "1 50 leave"])
    done = analyze(make_trace(spec + "\n", tmp_path / "cycle"), tmp_path / "out", "--time-correct")
    check_analysis(done)
    assert done.summary()["time_correction"]["converged"] is False
    assert "the time correction did not converge" in done.proc.stderr, done.why()


def test_unmatched_messages_analysed_anyway_are_warned(tmp_path):
    spec = ring_spec(rng("unmatched"))
    spec = "\n".join(line for line in spec.splitlines() if " 4 64" not in line or "send" not in line
                     or not line.startswith("0 ")) + "\n"  # rank 0's send of iteration 4 is lost
    done = analyze(make_trace(spec, tmp_path / "lost"), tmp_path / "out", "--allow-unmatched")
    check_analysis(done)
    assert "0 sends without a receive and 1 receives without a send" in done.proc.stderr, done.why()
