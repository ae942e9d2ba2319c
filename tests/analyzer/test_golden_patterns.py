"""Golden tests: one tiny synthetic trace per pattern, exact severities (specs/*.spec say
how each number comes about)."""

from __future__ import annotations

import re

import pytest

from analyzer_helpers import SPECS

from gridscope.analysis.metric_tree import PATTERNS

US = 1e-6
# `# expect PATTERN grid= local=`: under Scalasca's rules (the default); `# expect@gridscope`
# lines replace a pattern's expectation under gridscope's rules (docs/root-causes.md, "Rules")
EXPECT = re.compile(r"^# expect(@gridscope)? (\w+) grid=([\d.]+) local=([\d.]+)$", re.M)
EXPECT_COUNTS = re.compile(r"^# expect collectives=(\d+) incomplete=(\d+)$", re.M)
EXPECT_OPTION = re.compile(r"^# expect-option (\w+)$", re.M)  # an AnalyzeOptions flag set to True


def declared_expectations() -> dict[str, tuple[dict[str, tuple[float, float]], tuple[int, int] | None, dict]]:
    """case -> ({pattern: (grid, local) s}, (collectives, incomplete) or None, analyse options),
    from the `# expect` lines of each specs/*.spec (each number derived by hand in its
    comments). A case is a spec's name, and NAME@gridscope when it declares expectations
    under gridscope's rules."""
    out = {}
    for spec in sorted(SPECS.glob("*.spec")):
        text = spec.read_text()
        scalasca = {m[2]: (float(m[3]) * US, float(m[4]) * US) for m in EXPECT.finditer(text) if not m[1]}
        gridscope = {m[2]: (float(m[3]) * US, float(m[4]) * US) for m in EXPECT.finditer(text) if m[1]}
        counts = EXPECT_COUNTS.search(text)
        counts = (int(counts[1]), int(counts[2])) if counts else None
        options = {name: True for name in EXPECT_OPTION.findall(text)}
        if scalasca:
            out[spec.stem] = (scalasca, counts, options)
        if gridscope:
            out[f"{spec.stem}@gridscope"] = ({**scalasca, **gridscope}, counts, {**options, "rules": "gridscope"})
    return out


GOLDEN = declared_expectations()


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_pattern_severities(case, jobs, make_trace, analyse):
    expected, counts, options = GOLDEN[case]
    summary = analyse(make_trace(case.partition("@")[0]), jobs=jobs, **options)
    assert set(expected) <= set(PATTERNS), case
    for pattern in PATTERNS:
        grid, local = expected.get(pattern, (0.0, 0.0))
        got = summary["patterns"][pattern]
        assert got["grid"] == pytest.approx(grid, rel=1e-9, abs=1e-15), (case, pattern)
        assert got["local"] == pytest.approx(local, rel=1e-9, abs=1e-15), (case, pattern)
    if counts is not None:
        assert (summary["collectives"], summary["incomplete_collectives"]) == counts
    assert summary["clock_violations"] == 0


def test_every_pattern_has_a_golden_trace():
    covered = {p for patterns, _, _ in GOLDEN.values() for p in patterns}
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
