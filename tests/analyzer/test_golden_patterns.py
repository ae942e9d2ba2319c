"""Golden tests: one tiny synthetic trace per pattern, exact severities (specs/*.spec say
how each number comes about)."""

from __future__ import annotations

import pytest

from gridscope.analysis.metric_tree import PATTERNS

US = 1e-6

GOLDEN = {
    "late_sender": {"late_sender": (30 * US, 30 * US)},
    "wrong_order": {"wrong_order": (0.0, 40 * US)},
    "late_receiver": {"late_receiver": (30 * US, 29 * US)},
    "lr_waitall": {"late_receiver": (30 * US, 0.0), "late_sender": (0.0, 18 * US)},
    "barrier": {"wait_at_barrier": (50 * US, 5 * US), "barrier_completion": (15 * US, 2 * US)},
    "nxn": {"wait_at_nxn": (30 * US, 0.0), "nxn_completion": (6 * US, 0.0)},
    "one_to_n": {"late_broadcast": (0.0, 20 * US), "early_reduce": (0.0, 25 * US),
                 "early_scan": (20 * US, 0.0)},
}


@pytest.mark.parametrize("spec", sorted(GOLDEN))
def test_pattern_severities(spec, make_trace, analyse):
    summary = analyse(make_trace(spec))
    expected = GOLDEN[spec]
    for pattern in PATTERNS:
        grid, local = expected.get(pattern, (0.0, 0.0))
        got = summary["patterns"][pattern]
        assert got["grid"] == pytest.approx(grid, rel=1e-9, abs=1e-15), (spec, pattern)
        assert got["local"] == pytest.approx(local, rel=1e-9, abs=1e-15), (spec, pattern)
    assert summary["clock_violations"] == 0


def test_every_pattern_has_a_golden_trace():
    covered = {p for patterns in GOLDEN.values() for p in patterns}
    assert covered == set(PATTERNS)


def test_counts_and_times(make_trace, analyse):
    summary = analyse(make_trace("late_sender"))
    assert summary["ranks"] == 4
    assert summary["metahosts"] == {"jsc": 2, "brs": 2}
    assert summary["total_time_s"] == pytest.approx(4 * 100 * US)
    # MPI time: rank 0: 50+5+1, rank 1: 20+1+8, rank 2: 5+1+1, rank 3: 1+40
    assert summary["mpi_time_s"] == pytest.approx((56 + 29 + 7 + 41) * US)
    assert summary["messages"] == 4  # r2->r0, r0->r1 twice, r2->r3
    assert summary["unmatched_messages"] == {"sends": 0, "receives": 0}


def test_clock_violation_counted_and_corrected(make_trace, analyse):
    """specs/violation.spec: rank 1's receive ends before rank 0's send starts."""
    plain = analyse(make_trace("violation"))
    assert plain["clock_violations"] == 1
    assert plain["time_correction"]["enabled"] is False
    # uncorrected, the Late Sender is capped by the (too short) receive: 15 - 10 = 5 us
    assert plain["patterns"]["late_sender"]["grid"] == pytest.approx(5 * US)
    fixed = analyse(make_trace("violation"), time_correct=True)
    assert fixed["clock_violations"] == 0
    assert fixed["time_correction"]["corrected_receives"] == 2
    # the A-B latency from the trace is the other message's 40 us: rank 1's receive moves to
    # 30 + 40 = 70, its later send to 75; rank 0's receive region (40..60) then becomes
    # 58..115: Late Senders 20 + 17 us (specs/violation.spec, test_time_correct.py)
    assert fixed["patterns"]["late_sender"]["grid"] == pytest.approx(37 * US)


@pytest.mark.parametrize("jobs", [1, 2])
def test_clock_offsets_applied(make_trace, analyse, jobs):
    """specs/clock_offsets.spec: rank 1's ClockOffsets (+50 us) move its receive before
    the send; read without them the Late Sender would be 80 us instead of 30."""
    summary = analyse(make_trace("clock_offsets"), jobs=jobs)
    assert summary["patterns"]["late_sender"] == {"grid": pytest.approx(30 * US), "local": 0.0}
    assert summary["clock_violations"] == 0


@pytest.mark.parametrize("jobs", [1, 2, 4])
@pytest.mark.parametrize("time_correct", [False, True])
def test_receives_match_in_posting_order(make_trace, analyse, jobs, time_correct):
    """specs/posting_order.spec: two receives on one channel complete in the reverse of
    their posting order; MPI matches by posting order, on both sides of the message."""
    summary = analyse(make_trace("posting_order"), jobs=jobs, time_correct=time_correct)
    patterns = summary["patterns"]
    assert patterns["wrong_order"] == {"grid": 0.0, "local": pytest.approx(30 * US)}
    assert patterns["late_sender"] == {"grid": 0.0, "local": 0.0}
    assert patterns["late_receiver"] == {"grid": 0.0, "local": pytest.approx(50 * US)}
    assert summary["clock_violations"] == 0
    assert summary["unmatched_messages"] == {"sends": 0, "receives": 0}


@pytest.mark.parametrize("jobs,speculation", [(1, None), (2, None), (4, None), (2, "0"), (4, "0")])
def test_clock_correction_matches_in_posting_order(make_trace, analyse, jobs, speculation, monkeypatch):
    """specs/clc_posting_order.spec: the violated receive is the later-posted one that
    completed first; the correction must move that one. speculation "0" runs the -j N
    fallback at once (process 0 replays every rank's records, as when corrections cascade
    across processes), which must keep each rank's posting order too."""
    if speculation is not None:
        monkeypatch.setenv("GRIDSCOPE_CLC_SPECULATIVE_ROUNDS", speculation)
    trace = make_trace("clc_posting_order")
    assert analyse(trace, jobs=jobs)["clock_violations"] == 1
    fixed = analyse(trace, jobs=jobs, time_correct=True)
    assert fixed["clock_violations"] == 0
    assert fixed["time_correction"]["corrected_receives"] == 1


# Non-blocking collectives (docs/patterns.md "Non-blocking collectives"): the same metrics as
# the blocking patterns; specs/nbc_*.spec derive each number by hand.
NBC_GOLDEN = {
    "nbc_nxn": ({"wait_at_nxn": (43 * US, 39 * US), "nxn_completion": (13 * US, 10 * US)}, 6, 0),
    "nbc_barrier": ({"wait_at_barrier": (98 * US, 0.0), "wait_at_nxn": (0.0, 18 * US),
                     "barrier_completion": (1 * US, 5 * US)}, 5, 1),
    "nbc_completion": ({"wait_at_nxn": (12 * US, 0.0), "nxn_completion": (21 * US, 6 * US),
                        "barrier_completion": (0.0, 5 * US)}, 5, 0),
    "nbc_bcast": ({"late_broadcast": (25 * US, 18 * US)}, 2, 0),
    "nbc_reduce": ({"early_reduce": (9 * US, 25 * US), "early_scan": (18 * US, 0.0)}, 3, 0),
}


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.parametrize("spec", sorted(NBC_GOLDEN))
def test_nonblocking_collective_severities(spec, jobs, make_trace, analyse):
    summary = analyse(make_trace(spec), jobs=jobs)
    expected, collectives, incomplete = NBC_GOLDEN[spec]
    for pattern in PATTERNS:
        grid, local = expected.get(pattern, (0.0, 0.0))
        got = summary["patterns"][pattern]
        assert got["grid"] == pytest.approx(grid, rel=1e-9, abs=1e-15), (spec, pattern)
        assert got["local"] == pytest.approx(local, rel=1e-9, abs=1e-15), (spec, pattern)
    assert summary["collectives"] == collectives
    assert summary["incomplete_collectives"] == incomplete


def test_nonblocking_waits_charged_to_the_completing_call(make_trace, analyse):
    """specs/nbc_nxn.spec: the waits and completion delays are in the completing MPI_Wait /
    MPI_Waitall, never in the MPI_I* calls. Wait at NxN: grid 35 + 8 in MPI_Wait; local 21
    in rank 1's Wait, 18 in rank 0's Waitall. NxN Completion: grid 5 + 4 + 3 + 1 in
    MPI_Wait; local 3 in rank 1's Wait, 2 + 5 in rank 0's Waitalls."""
    summary = analyse(make_trace("nbc_nxn"))
    got = {(r["pattern"], r["class"], r["callpath"]): r["seconds"] for r in summary["by_callpath"]}
    assert got == {("wait_at_nxn", "grid", "main/MPI_Wait"): pytest.approx(43 * US),
                   ("wait_at_nxn", "local", "main/MPI_Wait"): pytest.approx(21 * US),
                   ("wait_at_nxn", "local", "main/MPI_Waitall"): pytest.approx(18 * US),
                   ("nxn_completion", "grid", "main/MPI_Wait"): pytest.approx(13 * US),
                   ("nxn_completion", "local", "main/MPI_Wait"): pytest.approx(3 * US),
                   ("nxn_completion", "local", "main/MPI_Waitall"): pytest.approx(7 * US)}


def test_nonblocking_completion_delay_in_the_completing_wait(make_trace, analyse):
    """specs/nbc_completion.spec: the completion delays are in MPI_Wait (the completing
    MPI_Test is not charged; the late Ibcast completion has no pattern)."""
    summary = analyse(make_trace("nbc_completion"))
    got = {(r["pattern"], r["class"], r["callpath"]): r["seconds"] for r in summary["by_callpath"]}
    assert got == {("wait_at_nxn", "grid", "main/MPI_Wait"): pytest.approx(12 * US),
                   ("nxn_completion", "grid", "main/MPI_Wait"): pytest.approx(21 * US),
                   ("nxn_completion", "local", "main/MPI_Wait"): pytest.approx(6 * US),
                   ("barrier_completion", "local", "main/MPI_Wait"): pytest.approx(5 * US)}
