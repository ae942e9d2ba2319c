"""Test fixtures: analysis folders built from a real trace without the analyzer.

The viewer must be testable on its own, so `make_run` derives a small, self-consistent
analysis folder from a trace: profile.cubex (time per call path and rank, from the trace's
own segments, written with gridscope.cube), waitstates.feather (Late Sender instances:
every receive entered before its matching send entered; Wait at NxN: Allreduce entry
versus the latest entry of that iteration) and summary.json naming the trace.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

from gridscope.cube import Experiment, Metric, write_cubex
from gridscope.cube.model import make_locations, typed_severities
from gridscope.native import binary
from gridscope.viewer.trace import Trace, dump, find_anchor

GRID, LOCAL = "grid", "local"
# A region name that would run script if the page ever parsed trace names as HTML.
XSS_NAME = "<img src=x onerror=window.__xss=1;alert(1)>"


def synth_trace(out: Path, ranks: int = 8, metahosts: int = 2, iterations: int = 6,
                region_name: str = "compute") -> Path:
    """A synthetic ring + Allreduce trace on a metacomputer (`gs-tracegen synth`)."""
    subprocess.run([str(binary("gs-tracegen")), "synth", str(out), "--ranks", str(ranks),
                    "--metahosts", str(metahosts), "--iterations", str(iterations),
                    "--region-name", region_name], check=True, capture_output=True)
    return out / "traces.otf2"


def _segments_table(trace: Trace) -> pd.DataFrame:
    """One row per (location, segment): start, end, call path."""
    frames = []
    for loc in range(len(trace.defs["locations"])):
        t, cp, _ = trace.segments(loc)
        if len(t) < 2:
            continue
        frames.append(pd.DataFrame({"loc": loc, "start": np.asarray(t[:-1]), "end": np.asarray(t[1:]),
                                    "cp": np.asarray(cp[:-1])}))
    frame = pd.concat(frames, ignore_index=True)
    return frame[frame["cp"] >= 0].reset_index(drop=True)


def _enclosing(seg: pd.DataFrame, loc: int, t: int) -> tuple[int, int, int]:
    rows = seg[(seg["loc"] == loc) & (seg["start"] <= t) & (seg["end"] >= t)]
    r = rows.iloc[-1]
    return int(r["start"]), int(r["end"]), int(r["cp"])


def make_run(folder: Path, anchor: Path) -> Path:
    """Write an analysis folder for the trace `anchor` into `folder`."""
    anchor = find_anchor(anchor)
    folder.mkdir(parents=True, exist_ok=True)
    dump_dir = folder / "fixture-dump"
    dump(anchor, dump_dir)
    trace = Trace.open(dump_dir)
    locs = trace.locations()
    rank_of = {l.index: l.rank for l in locs}
    mh_of = {l.index: l.metahost for l in locs}
    paths = trace.cp_paths
    seg = _segments_table(trace)

    waits = []
    c = trace.columns
    for s_loc, r_loc, ts, tr in zip(c["msg_send_loc"], c["msg_recv_loc"], c["msg_send_time"], c["msg_recv_time"]):
        recv_enter, _, recv_cp = _enclosing(seg, int(r_loc), int(tr))
        send_enter, _, _ = _enclosing(seg, int(s_loc), int(ts))
        if send_enter > recv_enter:
            waits.append(("late_sender", GRID if mh_of[int(s_loc)] != mh_of[int(r_loc)] else LOCAL,
                          rank_of[int(r_loc)], recv_enter, send_enter, paths[recv_cp]))
    coll = seg[[paths[cp].endswith("MPI_Allreduce") for cp in seg["cp"]]].copy()
    if len(coll):
        coll["instance"] = coll.groupby("loc").cumcount()
        grid_comm = len(set(mh_of.values())) > 1
        for _, inst in coll.groupby("instance"):
            latest = int(inst["start"].max())
            for _, r in inst.iterrows():
                if latest > r["start"]:
                    waits.append(("wait_at_nxn", GRID if grid_comm else LOCAL, rank_of[int(r["loc"])],
                                  int(r["start"]), latest, paths[int(r["cp"])]))
    w = pd.DataFrame(waits, columns=["pattern", "class", "rank", "start_ns", "end_ns", "callpath"])
    table = pd.DataFrame({
        "pattern": w["pattern"].astype("string"), "class": w["class"].astype("string"),
        "rank": w["rank"].astype("int32"), "start_s": (w["start_ns"] / 1e9).astype("float64"),
        "end_s": (w["end_ns"] / 1e9).astype("float64"),
        "severity_s": ((w["end_ns"] - w["start_ns"]) / 1e9).astype("float64"),
        "callpath": w["callpath"].astype("string"),
    })
    table.to_feather(folder / "waitstates.feather")

    # profile: exclusive time per call path and rank; MPI time minus the wait states
    seg["rank"] = seg["loc"].map(rank_of)
    seg["path"] = [paths[cp] for cp in seg["cp"]]
    seg["mpi"] = [bool(trace.cp_is_mpi[cp]) for cp in seg["cp"]]
    seg["dur"] = (seg["end"] - seg["start"]) / 1e9
    rows = []
    for (path, rank, mpi), v in seg.groupby(["path", "rank", "mpi"])["dur"].sum().items():
        rows.append(("mpi" if mpi else "time", path, rank, v))
    for (p, k, path, rank), v in table.groupby(["pattern", "class", "callpath", "rank"])["severity_s"].sum().items():
        rows.append((f"{p}_{k}", path, rank, v))
        rows.append(("mpi", path, rank, -v))
    sev = typed_severities(pd.DataFrame(rows, columns=["metric", "callpath", "rank", "value"]))

    def split(uid, disp, descr):
        return Metric(uid, disp, "sec", descr, children=(
            Metric(f"{uid}_{GRID}", "grid", "sec", f"{disp} between metahosts"),
            Metric(f"{uid}_{LOCAL}", "local", "sec", f"{disp} within a metahost")))

    metrics = (Metric("time", "Time", "sec", "time", children=(
        Metric("mpi", "MPI", "sec", "MPI time", children=(
            Metric("point_to_point", "Point-to-point", "sec", "p2p wait states",
                   children=(split("late_sender", "Late Sender", "receiver waits"),)),
            Metric("collective", "Collective", "sec", "collective wait states",
                   children=(split("wait_at_nxn", "Wait at NxN", "waits in N-to-N"),)),
        )),
    )),)
    ranks = sorted(set(rank_of.values()))
    by_rank = {l.rank: l for l in locs}
    exp = Experiment(metrics=metrics, callpaths=tuple(dict.fromkeys(paths)),
                     locations=make_locations(ranks, [by_rank[r].metahost for r in ranks],
                                              [by_rank[r].node for r in ranks]),
                     severities=sev)
    write_cubex(exp, folder / "profile.cubex")

    patterns = {}
    for (p, k), v in table.groupby(["pattern", "class"])["severity_s"].sum().items():
        patterns.setdefault(p, {GRID: 0.0, LOCAL: 0.0})[k] = float(v)
    metahost_counts: dict[str, int] = {}
    for r in ranks:
        metahost_counts[by_rank[r].metahost] = metahost_counts.get(by_rank[r].metahost, 0) + 1
    summary = {"ranks": len(ranks), "metahosts": metahost_counts, "events": trace.defs["events"],
               "total_time_s": float(seg["dur"].sum()), "mpi_time_s": float(seg[seg["mpi"]]["dur"].sum()),
               "clock_violations": 0, "patterns": patterns, "by_callpath": [], "by_metahost": [],
               "p2p": [], "trace": str(anchor)}
    (folder / "summary.json").write_text(json.dumps(summary, indent=1))
    import shutil

    shutil.rmtree(dump_dir)
    return folder
