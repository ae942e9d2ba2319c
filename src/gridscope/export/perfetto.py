"""Chrome trace-event JSON that the Perfetto UI (and chrome://tracing) opens.

- one process per metahost (pid = 1 + its index), one thread per location (tid = 1 +
  location index), named and sorted like the viewer's rows;
- Enter/Leave as B/E slices; timestamps in microseconds written as exact decimals of the
  nanosecond values (``1234.567``), so nothing is lost to float rounding;
- every matched message as a flow: ``s`` inside the send call, ``f`` (binding point
  ``e``) inside the receive call; category ``message`` or ``message,grid``;
- wait states as complete (``X``) slices on a separate thread per rank ("Rank N · wait
  states"), name = pattern, args = class, severity, call path.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gridscope.export.source import ENTER, LEAVE, ExportSource, region_names

WAIT_TID_BASE = 1_000_000
CHUNK = 1 << 18


def us(ns: int) -> str:
    """Nanoseconds as an exact microsecond decimal."""
    sign = "-" if ns < 0 else ""
    ns = abs(int(ns))
    return f"{sign}{ns // 1000}.{ns % 1000:03d}"


def _meta(name: str, pid: int, tid: int | None, args: dict) -> str:
    event = {"ph": "M", "name": name, "pid": pid, "args": args}
    if tid is not None:
        event["tid"] = tid
    return json.dumps(event)


def write_perfetto(src: ExportSource, out: Path, progress=None) -> dict:
    c = src.trace.columns
    locs = sorted(src.locations, key=lambda l: l.index)
    metahosts = src.metahost_order()
    pid_of_loc = np.asarray([1 + metahosts.index(l.metahost) for l in locs], dtype=np.int64)
    tid_of_loc = np.arange(1, len(locs) + 1, dtype=np.int64)
    rnames, rlookup = region_names(src.trace)
    rmpi = [src.trace.regions[i]["mpi"] for i in sorted(src.trace.regions)]
    names_json = [json.dumps(n) for n in rnames]
    cats = ['"mpi"' if m else '"user"' for m in rmpi]
    counts = {"slices": 0, "flows": 0, "waitstates": 0}
    with open(out, "w", encoding="utf-8") as f:
        f.write('{"displayTimeUnit":"ns","otherData":')
        f.write(json.dumps({"generator": "gridscope export", "trace": str(src.anchor)}))
        f.write(',"traceEvents":[\n')
        lines = []
        for i, mh in enumerate(metahosts):
            lines.append(_meta("process_name", i + 1, None, {"name": f"metahost {mh}"}))
            lines.append(_meta("process_sort_index", i + 1, None, {"sort_index": i}))
        for l in locs:
            pid, tid = int(pid_of_loc[l.index]), int(tid_of_loc[l.index])
            lines.append(_meta("thread_name", pid, tid, {"name": l.label}))
            lines.append(_meta("thread_sort_index", pid, tid, {"sort_index": l.rank * 64 + tid % 64}))
        f.write(",\n".join(lines))
        first = not lines

        def emit(batch: list[str]):
            nonlocal first
            if not batch:
                return
            f.write(("" if first else ",\n") + ",\n".join(batch))
            first = False

        n = len(c["ev_time"])
        for a in range(0, n, CHUNK):
            b = min(a + CHUNK, n)
            kind = np.asarray(c["ev_kind"][a:b])
            sel = np.nonzero((kind == ENTER) | (kind == LEAVE))[0]
            loc = np.asarray(c["ev_loc"][a:b])[sel]
            time = np.asarray(c["ev_time"][a:b])[sel]
            reg = rlookup[np.asarray(c["ev_region"][a:b])[sel]]
            is_enter = kind[sel] == ENTER
            # per (phase, region) and per location the fixed parts, so each event is one join
            heads = [[f'{{"ph":"{p}","name":{names_json[r]},"cat":{cats[r]},' for r in range(len(rnames))]
                     for p in ("E", "B")]
            where = [f'"pid":{pid_of_loc[i]},"tid":{tid_of_loc[i]},"ts":' for i in range(len(locs))]
            if time.size and time.min() < 0:
                stamps = [us(t) for t in time.tolist()]
            else:
                stamps = [f"{w}.{f:03d}" for w, f in zip((time // 1000).tolist(), (time % 1000).tolist())]
            batch = [f"{heads[e][r]}{where[lc]}{t}}}"
                     for e, r, lc, t in zip(is_enter.tolist(), reg.tolist(), loc.tolist(), stamps)]
            counts["slices"] += int(is_enter.sum())
            emit(batch)
            if progress:
                progress(b, n)

        mh_of_loc = [l.metahost for l in locs]
        batch = []
        for k, (s, r, ts, tr, nbytes) in enumerate(zip(c["msg_send_loc"].tolist(), c["msg_recv_loc"].tolist(),
                                                       c["msg_send_time"].tolist(), c["msg_recv_time"].tolist(),
                                                       c["msg_bytes"].tolist())):
            cat = "message,grid" if mh_of_loc[s] != mh_of_loc[r] else "message"
            batch.append(f'{{"ph":"s","id":{k},"name":"message","cat":"{cat}","pid":{pid_of_loc[s]},'
                         f'"tid":{tid_of_loc[s]},"ts":{us(ts)},"args":{{"bytes":{nbytes}}}}}')
            batch.append(f'{{"ph":"f","bp":"e","id":{k},"name":"message","cat":"{cat}","pid":{pid_of_loc[r]},'
                         f'"tid":{tid_of_loc[r]},"ts":{us(tr)}}}')
            counts["flows"] += 1
        emit(batch)

        w = src.waitstates
        master = src.master_location_of_rank()
        batch, named = [], set()
        for i in range(len(w)):
            loc = master.get(int(w.rank[i]))
            if loc is None:
                continue
            pid, tid = int(pid_of_loc[loc.index]), WAIT_TID_BASE + loc.rank
            if tid not in named:
                named.add(tid)
                batch.append(_meta("thread_name", pid, tid, {"name": f"Rank {loc.rank} · wait states"}))
                batch.append(_meta("thread_sort_index", pid, tid, {"sort_index": loc.rank * 64 + 63}))
            start, end = int(w.start_ns[i]), int(w.end_ns[i])
            args = {"class": w.classes[w.klass[i]], "severity_s": float(w.severity_s[i]), "callpath": w.callpath[i]}
            batch.append(f'{{"ph":"X","name":{json.dumps(w.patterns[w.pattern[i]])},"cat":"waitstate",'
                         f'"pid":{pid},"tid":{tid},"ts":{us(start)},"dur":{us(max(end - start, 0))},'
                         f'"args":{json.dumps(args)}}}')
            counts["waitstates"] += 1
        emit(batch)
        f.write("\n]}\n")
    return counts
