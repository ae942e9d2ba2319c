"""One-sided (RMA) and MPI-IO bytes from a trace written the way Score-P writes them
(specs/scorep_io_rma.spec: POSIX I/O with one shared matching id, a short read, a
non-blocking MPI-IO read completed in MPI_Wait, a completion without its begin, RMA
operations completed remotely). Each number below is derived by hand from the spec; the
bytes are charged to the call path of the event that carries them, as in Score-P's profile
(docs/analyzer.md, "One-sided and I/O bytes")."""

from __future__ import annotations

from pathlib import Path

from gridscope.cube.reader import read_cubex

RANK0 = {  # (metric, call path) -> bytes
    ("io_bytes_written", "main/write"): 100,
    ("io_bytes_read", "main/read"): 10,        # transferred, not the 64 requested
    ("bytes_put", "main/MPI_Put"): 16,
    ("bytes_get", "main/MPI_Get"): 8,
}
RANK1 = {
    ("io_bytes_read", "main/MPI_Wait"): 256,   # where the non-blocking read completed
    ("io_bytes_written", "main/MPI_File_write_at"): 48,
    ("bytes_put", "main/MPI_Get_accumulate"): 4,
    ("bytes_get", "main/MPI_Get_accumulate"): 4,
}
METRICS = ("bytes_put", "bytes_get", "io_bytes_read", "io_bytes_written")


def test_scorep_like_transfers_in_summary_and_cube(make_trace, analyse, tmp_path):
    trace = make_trace("scorep_io_rma")
    s = analyse(trace)
    t = s["transfers"]
    assert {m: t[m] for m in METRICS} == {"bytes_put": 20, "bytes_get": 12, "io_bytes_read": 266,
                                          "io_bytes_written": 148}
    both = {**RANK0, **RANK1}
    assert {(r["metric"], r["callpath"]): r["bytes"] for r in t["by_callpath"]} == both
    # ordered like the other per-call-path lists: metric name, then call path
    assert [(r["metric"], r["callpath"]) for r in t["by_callpath"]] == sorted(both)

    sev = read_cubex(Path(tmp_path / f"out-{trace.name}-1" / "profile.cubex")).severities
    rows = sev[sev["metric"].isin(METRICS) & (sev["value"] != 0)]
    got = {(m, cp, int(r)): int(v) for m, cp, r, v in
           zip(rows["metric"], rows["callpath"], rows["rank"], rows["value"])}
    assert got == {**{(m, cp, 0): b for (m, cp), b in RANK0.items()},
                   **{(m, cp, 1): b for (m, cp), b in RANK1.items()}}


def test_same_bytes_with_two_processes(make_trace, analyse):
    trace = make_trace("scorep_io_rma")
    one, two = analyse(trace), analyse(trace, jobs=2)
    assert two["transfers"] == one["transfers"]
    # the bytes sit beside the usual analysis: the spec's one Late Sender (5 us)
    assert one["patterns"]["late_sender"]["local"] == two["patterns"]["late_sender"]["local"] == 5e-6


def test_no_transfers_key_without_such_events(make_trace, analyse):
    assert "transfers" not in analyse(make_trace("late_sender"))
