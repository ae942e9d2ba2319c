"""`gridscope export` to Perfetto JSON, OTF2 (with wait-state markers) and parquet."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "viewer"))

from viewer_shared import run_gridscope  # noqa: E402
from viewer_fixtures import make_run, synth_trace  # noqa: E402

from gridscope.analysis.waitstates import read_waitstates  # noqa: E402
from gridscope.viewer.trace import Trace, dump  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    base = tmp_path_factory.mktemp("export")
    anchor = synth_trace(base / "trace", ranks=6, metahosts=2, iterations=4)
    return make_run(base / "run", anchor)


@pytest.fixture(scope="module")
def dumped(run, tmp_path_factory):
    out = tmp_path_factory.mktemp("dump")
    dump(Path(json.loads((run / "summary.json").read_text())["trace"]), out, events=True)
    return Trace.open(out)


def test_perfetto_reads_back_with_flows_and_waitstates(run, dumped, tmp_path):
    out = tmp_path / "trace.json"
    run_gridscope("export", run, "--format", "perfetto", "-o", out)
    doc = json.loads(out.read_text(), parse_float=Decimal)
    events = doc["traceEvents"]
    by_ph = {}
    for e in events:
        by_ph.setdefault(e["ph"], []).append(e)
    n_msgs = len(dumped.columns["msg_send_time"])
    assert len(by_ph["s"]) == len(by_ph["f"]) == n_msgs > 0
    assert {e["id"] for e in by_ph["s"]} == {e["id"] for e in by_ph["f"]}
    assert all(e["bp"] == "e" for e in by_ph["f"])
    assert any(e["cat"] == "message,grid" for e in by_ph["s"]) and any(e["cat"] == "message" for e in by_ph["s"])
    # one process per metahost, one thread per rank
    names = {e["args"]["name"] for e in by_ph["M"] if e["name"] == "process_name"}
    assert names == {"metahost jsc", "metahost brs"}
    # B/E pairs for every Enter/Leave, timestamps exact to the nanosecond
    kinds = np.asarray(dumped.columns["ev_kind"])
    assert len(by_ph["B"]) == int((kinds == 1).sum()) and len(by_ph["E"]) == int((kinds == 2).sum())
    depth: dict[tuple[int, int], int] = {}
    for e in events:  # per thread, in file order: properly nested, closed at the end
        if e["ph"] in "BE":
            key = (e["pid"], e["tid"])
            depth[key] = depth.get(key, 0) + (1 if e["ph"] == "B" else -1)
            assert depth[key] >= 0
    assert set(depth.values()) == {0}
    send_ns = sorted(int(Decimal(e["ts"]) * 1000) for e in by_ph["s"])
    assert send_ns == sorted(dumped.columns["msg_send_time"].tolist())
    # wait states as their own slices
    waits = read_waitstates(run)
    assert len(by_ph["X"]) == len(waits)
    assert {e["name"] for e in by_ph["X"]} == set(waits.pattern)
    assert all(e["cat"] == "waitstate" and e["args"]["class"] in ("grid", "local") for e in by_ph["X"])


def test_perfetto_of_a_scorep_trace(scorep_traces, tmp_path):
    out = tmp_path / "pp.json"
    run_gridscope("export", scorep_traces / "pipit-ping-pong", "--format", "perfetto", "-o", out)
    events = json.loads(out.read_text())["traceEvents"]
    assert sum(e["ph"] == "s" for e in events) == 16
    assert sum(e["ph"] == "X" for e in events) == 0


def test_otf2_copy_validates_and_holds_markers(run, tmp_path):
    out = tmp_path / "vampir"
    run_gridscope("export", run, "--format", "otf2", "-o", out)
    anchor = out / "traces.otf2"
    check = subprocess.run(["otf2-print", "--silent", "-Werror", str(anchor)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    markers = subprocess.run(["otf2-marker", str(anchor)], capture_output=True, text=True, check=True).stdout
    waits = read_waitstates(run)
    lines = [l for l in markers.splitlines() if l.startswith("MARKER ")]
    assert len(lines) == len(waits)
    defs = [l for l in markers.splitlines() if l.startswith("MARKER_DEF")]
    assert len(defs) == len(waits.groupby(["pattern", "class"]))
    assert any('"late_sender (grid)"' in d and "HIGH" in d for d in defs)
    # marker times are the wait states' start in ticks (1 GHz timer, offset 10^12)
    first = waits.sort_values("start_s").iloc[0]
    assert f"Time: {10**12 + round(first.start_s * 1e9)}," in markers
    # the events are untouched: same event stream as the original
    original = json.loads((run / "summary.json").read_text())["trace"]
    a = subprocess.run(["otf2-print", original], capture_output=True, text=True, check=True).stdout
    b = subprocess.run(["otf2-print", str(anchor)], capture_output=True, text=True, check=True).stdout
    assert a.splitlines()[3:] == b.splitlines()[3:]


def test_parquet_is_typed(run, dumped, tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "events.parquet"
    run_gridscope("export", run, "--format", "parquet", "-o", out)
    schema = pq.read_schema(out)
    types = {f.name: str(f.type) for f in schema}
    assert types["rank"] == "int32" and types["time_ns"] == "int64"
    assert types["bytes_sent"] == "uint64" and types["partner_rank"] == "int32"
    assert types["kind"].startswith("dictionary<values=string") and types["region"].startswith("dictionary<values=string")
    frame = pd.read_parquet(out, dtype_backend="numpy_nullable")
    assert str(frame["rank"].dtype) == "Int32" and str(frame["time_ns"].dtype) == "Int64"
    assert frame["kind"].dtype == "category" and not (frame.dtypes == object).any()
    assert len(frame) == dumped.defs["events"]
    sends = frame[frame.kind == "mpi_send"]
    assert len(sends) == len(dumped.columns["msg_send_time"])
    assert sends.partner_rank.notna().all() and (sends.bytes_sent == 65536).all()
    enters = frame[frame.kind == "enter"]
    assert set(enters.region.astype(str)) == {"main", "compute", "MPI_Send", "MPI_Recv", "MPI_Allreduce"}
    assert set(frame.metahost.astype(str)) == {"jsc", "brs"}


@pytest.mark.parametrize("args, message", [
    (["/nonexistent/trace", "--format", "parquet"], "no OTF2 trace here"),
    (["{scorep}/pipit-ping-pong", "--format", "otf2"], "give the analysis folder"),
    (["{run}", "--format", "parquet", "--exists"], "exists already"),
])
def test_bad_input_is_one_line(run, scorep_traces, tmp_path, args, message):
    out = tmp_path / "out"
    if "--exists" in args:
        args = [a for a in args if a != "--exists"]
        out.write_text("x")
    args = [a.format(scorep=scorep_traces, run=run) for a in args]
    proc = run_gridscope("export", *args, "-o", out, check=False)
    assert proc.returncode == 2
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_bad_format_rejected(run, tmp_path):
    proc = run_gridscope("export", run, "--format", "svg", "-o", tmp_path / "x", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_corrupt_trace_leaves_no_output(tmp_path):
    anchor = synth_trace(tmp_path / "t", ranks=2, metahosts=1, iterations=3)
    evt = tmp_path / "t" / "traces" / "0.evt"
    evt.write_bytes(evt.read_bytes()[:40])
    out = tmp_path / "out.json"
    proc = run_gridscope("export", anchor, "--format", "perfetto", "-o", out, check=False)
    assert proc.returncode == 2
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and "cannot read the trace" in lines[0], proc.stderr
    assert not out.exists()
    assert not list(tmp_path.glob(".gridscope-export-*"))
