"""The HTTP side of `gridscope view`: static front end plus a small JSON API.

Security rules (issue 7): loopback unless --host; only the viewer's own static files and
a fixed list of the run's files are served (no path from the URL reaches the file
system); requests for other hosts are refused when bound to loopback (DNS rebinding);
bad requests get a 4xx JSON error, never a traceback; a strict Content-Security-Policy
keeps any injected markup from running even if a name slipped past the escaping.
"""

from __future__ import annotations

import math
import mimetypes
import os
import sys
import threading
from functools import cached_property
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np

from gridscope.analysis import names as N
from gridscope.errors import GridscopeError
from gridscope.viewer import comm, fastjson, lod
from gridscope.viewer.loading import BackgroundLoad, NotLoaded
from gridscope.viewer.run import DOWNLOADABLE, RunFolder
from gridscope.viewer.trace import CATEGORY_NAMES, Trace, open_trace

STATIC_ENV = "GRIDSCOPE_VIEWER_STATIC"  # development: serve viewer/static from the source tree
STATIC_TYPES = {".html", ".js", ".css", ".svg", ".png", ".ico", ".json"}
MAX_WIDTH = 8192
MAX_CELLS = 4_000_000     # rows x pixels per timeline request
MESSAGE_LIMIT = 5000
WAIT_LIMIT = 20000
PATH_LIMIT = 20000        # critical-path stretches per answer
LINK_LIMIT = 5000         # critical-path links (cause -> wait) per answer
SAMPLE = 8                # more than SAMPLE x a limit in the window: thin an even sample of that many
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def static_dir() -> Path:
    override = os.environ.get(STATIC_ENV)
    if override:
        return Path(override).resolve()
    from gridscope.native import share_dir

    path = share_dir() / "viewer"
    if not (path / "index.html").is_file():
        raise GridscopeError(path, "viewer files are missing; reinstall gridscope")
    return path.resolve()


class BadRequest(Exception):
    """A 4xx answer with a short message."""

    def __init__(self, message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST):
        super().__init__(message)
        self.status = status


class ViewerData:
    """Everything the API answers from, loaded once per server: the run's files at once,
    the trace and the wait states (slow the first time) either at once or in the
    background (ViewerData.in_background), until when trace endpoints answer 503."""

    def __init__(self, run: RunFolder, trace: Trace | None):
        self.run = run
        self.lock = threading.Lock()
        self.background: BackgroundLoad | None = None
        self._attach(trace)

    @classmethod
    def in_background(cls, run: RunFolder, anchor: Path | None, cache_folder: Path | None) -> "ViewerData":
        """The run's data at once; its trace dump, wait states and critical path in the
        background (the wait states and the path beside the dump: the other core)."""
        data = cls.__new__(cls)
        data.run, data.lock = run, threading.Lock()

        def load(report):
            run_files = [_in_background(lambda name=name: getattr(run, name))
                         for name in ("waitstates", "critical_path")]
            trace = open_trace(anchor, cache_folder, progress=report) if anchor is not None else None
            for done in run_files:
                done()
            data._attach(trace)

        data.background = BackgroundLoad(load)
        return data

    @property
    def loaded(self) -> bool:
        return self.background is None or self.background.ok

    def need_loaded(self) -> None:
        """Raise NotLoaded while the trace is read (or when reading it failed)."""
        if not self.loaded:
            raise NotLoaded()

    def load_status(self) -> dict:
        if self.background is None:
            return {"loading": False, "step": "", "error": None, "progress": 100}
        return self.background.status()

    def wait_loaded(self) -> None:
        """Block until the background load ended (tests, benchmarks); its error as a GridscopeError."""
        if self.background is not None:
            self.background.wait()
            if self.background.error:
                raise GridscopeError(None, self.background.error.removeprefix("gridscope: "))

    def _attach(self, trace: Trace | None) -> None:
        """The trace's and the wait states' parts (with `trace` None: a run without a trace)."""
        run = self.run
        self.trace = trace
        rank_map = run.rank_metahosts() if run.experiment is not None else {}
        self.locations = trace.locations(rank_map) if trace is not None else []
        order = self._metahost_order()
        self.rows = sorted(self.locations,
                           key=lambda l: (order.get(l.metahost, len(order)), l.rank, l.index))
        self.row_of_loc = np.zeros(len(self.locations), dtype=np.int32)
        for row, loc in enumerate(self.rows):
            self.row_of_loc[loc.index] = row
        self.row_of_rank: dict[int, int] = {}
        for row, loc in enumerate(self.rows):
            self.row_of_rank.setdefault(loc.rank, row)
        if trace is not None:
            c = trace.columns
            dur = c["msg_recv_time"] - c["msg_send_time"] if len(c["msg_send_time"]) else np.zeros(0)
            self.max_msg_ns = int(dur.max()) if len(dur) else 0
        self.waits = run.waitstates
        self.wait_rows = self._rows_of(self.waits.rank)
        self.max_wait_ns = self.waits.max_duration_ns
        rows = self.wait_rows
        self.wait_row_range = (int(rows.min()), int(rows.max())) if len(rows) else (0, -1)
        self.path = run.critical_path
        self.path_rows = self._rows_of(self.path.rank)
        self.link_rows = (self._rows_of(self.path.link_cause_rank), self._rows_of(self.path.link_waiting_rank))

    def _rows_of(self, ranks: np.ndarray) -> np.ndarray:
        """Timeline row of each rank (its first location), -1 for a rank without one."""
        ranks = np.asarray(ranks)
        if not self.row_of_rank or len(ranks) == 0:
            return np.full(len(ranks), -1, dtype=np.int32)
        lo, hi = min(self.row_of_rank), max(self.row_of_rank)
        table = np.full(hi - lo + 1, -1, dtype=np.int32)
        for rank, row in self.row_of_rank.items():
            table[rank - lo] = row
        if int(ranks.min()) >= lo and int(ranks.max()) <= hi:  # the usual case: one gather
            return table[ranks - lo] if lo else table[ranks]
        inside = (ranks >= lo) & (ranks <= hi)
        return np.where(inside, table[np.clip(ranks - lo, 0, hi - lo)], -1).astype(np.int32)

    def _metahost_order(self) -> dict[str, int]:
        names = list(self.run.summary.get("metahosts", {}) or {})
        for loc in sorted(self.locations, key=lambda l: l.rank):
            if loc.metahost not in names:
                names.append(loc.metahost)
        return {n: i for i, n in enumerate(names)}

    @cached_property
    def profile(self):
        from gridscope.viewer.profile import Profile

        exp = self.run.experiment
        if exp is None:
            return None
        return Profile.from_experiment(exp, self.run.is_diff, base=self.run.base_experiment)

    # ------------------------------------------------------------------ API
    def meta(self) -> dict:  # noqa: C901 (one dict of what the page needs)
        """What the page needs; while the trace is read no rows and no wait-state patterns
        yet (the page asks again when `load` says it is done)."""
        load = self.load_status()  # one look: the read may end while this answer is made
        loaded = not load["loading"] and not load["error"]
        t = self.trace if loaded else None
        out = {
            "run": self.run.name,
            "diff": self.run.is_diff,
            "summary": _finite(self.run.summary),
            "story": _finite(story_of(self.run.summary, self.run.is_diff)),
            "has_profile": self.run.experiment is not None,
            "has_trace": t is not None if loaded else self.run.trace_anchor is not None,
            "patterns": self.waits.patterns if loaded else [],
            "classes": self.waits.classes if loaded else [],
            "waitstate_count": len(self.waits) if loaded else 0,
            "critical_path_count": len(self.path) if loaded else 0,
            "categories": list(CATEGORY_NAMES),
            "downloads": [] if self.run.bare_trace else [f for f in DOWNLOADABLE if (self.run.folder / f).is_file()],
            "trace_problem": self.run.trace_problem,
            "load": load,
        }
        if t is not None:
            out.update({
                "duration_ns": t.duration_ns,
                "start_ns": t.start_ns,
                "rows": [{"label": l.label, "rank": l.rank, "thread": l.thread, "node": l.node,
                          "metahost": l.metahost} for l in self.rows],
                "regions": {str(k): {"name": r["name"], "mpi": r["mpi"]} for k, r in t.regions.items()},
                "callpaths": {"parent": t.cp_parent.tolist(), "region": t.cp_region.tolist(),
                              "category": t.cp_category.tolist()},
                "messages": t.defs["messages"],
                "events": t.defs["events"],
            })
        return out

    def timeline(self, t0: int, t1: int, width: int, r0: int, r1: int) -> dict:
        self.need_loaded()
        t = self.trace
        if t is None:
            raise BadRequest("this run has no trace", HTTPStatus.NOT_FOUND)
        r1 = min(r1, len(self.rows))
        if not (0 <= r0 <= r1) or t1 <= t0 or not 1 <= width <= MAX_WIDTH:
            raise BadRequest("bad window: want t0 < t1, 1 <= width <= 8192, 0 <= r0 <= r1")
        if (r1 - r0) * width > MAX_CELLS:
            raise BadRequest("window too large: ask for fewer rows or pixels")
        rows = []
        offsets = t.seg_offsets
        spans = [(int(offsets[self.rows[row].index]), int(offsets[self.rows[row].index + 1])) for row in range(r0, r1)]
        c = t.columns
        details = lod.rows_detail(c["seg_time"], c["seg_cp"], c["seg_mpicum"], spans, t.cp_is_mpi, t0, t1, width)
        for row, d in zip(range(r0, r1), details):
            if d.exact:
                item = {"row": row, "exact": True, "cp": d.cp.tolist(), "start": d.start.tolist(),
                        "end": d.end.tolist()}
            else:  # numpy arrays: the answer's bulk, written by fastjson
                item = {"row": row, "exact": False, "cp": d.cp,
                        "mpi": np.rint(d.mpi_fraction * 1000).astype(np.int32)}
            rows.append(item)
        return {"t0": t0, "t1": t1, "width": width, "r0": r0, "r1": r1, "rows": rows,
                "messages": self._messages(t0, t1, width, r0, r1),
                "waits": self._waits(t0, t1, width, r0, r1),
                "critical": self._critical(t0, t1, width, r0, r1),
                "links": self._links(t0, t1, width, r0, r1)}

    def _critical(self, t0, t1, width, r0, r1) -> dict:
        """The critical path's stretches in the window (they do not overlap: ends ascend too)."""
        p = self.path
        lo = int(np.searchsorted(p.end_ns, t0, side="left"))
        hi = int(np.searchsorted(p.start_ns, t1, side="right"))
        idx = np.arange(lo, max(lo, hi))
        rows = self.path_rows[idx]
        idx = idx[(rows >= r0) & (rows < r1)]
        pos, count = lod.thin(self.path_rows[idx], self.path_rows[idx], p.start_ns[idx], t0, t1, width, PATH_LIMIT)
        idx = idx[pos]
        return {"row": self.path_rows[idx].tolist(), "start": p.start_ns[idx].tolist(),
                "end": p.end_ns[idx].tolist(), "count": count.tolist()}

    def _links(self, t0, t1, width, r0, r1) -> dict:
        """Where the path moves from a delaying rank to the rank that waited for it (the cause's
        time is the waiting rank's end of waiting: the link is vertical unless clocks differ)."""
        p = self.path
        lo = int(np.searchsorted(p.link_cause_ns, t0, side="left"))
        hi = int(np.searchsorted(p.link_cause_ns, t1, side="right"))
        idx = np.arange(lo, max(lo, hi))
        a, b = self.link_rows[0][idx], self.link_rows[1][idx]
        keep = (a >= 0) & (b >= 0) & (((a >= r0) & (a < r1)) | ((b >= r0) & (b < r1)))
        idx = idx[keep]
        pos, count = lod.thin(self.link_rows[0][idx], self.link_rows[1][idx], p.link_cause_ns[idx],
                              t0, t1, width, LINK_LIMIT)
        idx = idx[pos]
        return {"from": self.link_rows[0][idx].tolist(), "to": self.link_rows[1][idx].tolist(),
                "tf": p.link_cause_ns[idx].tolist(), "tt": p.link_waiting_ns[idx].tolist(),
                "count": count.tolist()}

    def _messages(self, t0, t1, width, r0, r1) -> dict:
        c = self.trace.columns
        head, mid, hi = lod.in_window(c["msg_send_time"], c["msg_recv_time"], self.max_msg_ns, t0, t1)
        def on_rows(idx):
            src, dst = self.row_of_loc[c["msg_send_loc"][idx]], self.row_of_loc[c["msg_recv_loc"][idx]]
            return ((src >= r0) & (src < r1)) | ((dst >= r0) & (dst < r1))

        every_row = r0 <= 0 and r1 >= len(self.rows)  # every message touches a row asked for
        idx, weight = lod.window_sample(head, mid, hi, SAMPLE * MESSAGE_LIMIT, None if every_row else on_rows)
        src = self.row_of_loc[c["msg_send_loc"][idx]] if len(idx) else np.zeros(0, np.int32)
        dst = self.row_of_loc[c["msg_recv_loc"][idx]] if len(idx) else np.zeros(0, np.int32)
        ts = c["msg_send_time"][idx].astype(np.int64)
        pos, count = lod.thin(src, dst, ts, t0, t1, width, MESSAGE_LIMIT, weight)
        idx, src, dst = idx[pos], src[pos], dst[pos]
        mh = [l.metahost for l in self.rows]
        grid = [mh[a] != mh[b] for a, b in zip(src.tolist(), dst.tolist())]
        return {"from": src.tolist(), "to": dst.tolist(), "ts": c["msg_send_time"][idx].tolist(),
                "tr": c["msg_recv_time"][idx].tolist(), "bytes": c["msg_bytes"][idx].tolist(),
                "tag": c["msg_tag"][idx].tolist() if "msg_tag" in c else [None] * len(idx),
                "count": count.tolist(), "grid": grid}

    def _waits(self, t0, t1, width, r0, r1) -> dict:
        w = self.waits
        if len(w) == 0:
            return {"row": [], "start": [], "end": [], "pattern": [], "klass": [], "count": []}
        head, mid, hi = lod.in_window(w.start_ns, w.end_ns, self.max_wait_ns, t0, t1)
        every_row = r0 <= self.wait_row_range[0] and r1 > self.wait_row_range[1]  # all on rows asked for
        idx, weight = lod.window_sample(head, mid, hi, SAMPLE * WAIT_LIMIT,
                                        None if every_row else lambda i: (self.wait_rows[i] >= r0) & (self.wait_rows[i] < r1))
        pos, count = lod.thin(self.wait_rows[idx], w.pattern[idx].astype(np.int64) * 4 + w.klass[idx],
                              w.start_ns[idx], t0, t1, width, WAIT_LIMIT, weight)
        idx = idx[pos]
        return {"row": self.wait_rows[idx].tolist(), "start": w.start_ns[idx].tolist(),
                "end": w.end_ns[idx].tolist(), "pattern": w.pattern[idx].tolist(),
                "klass": w.klass[idx].tolist(), "count": count.tolist()}

    def waitstate_list(self, pattern: str, klass: str | None, limit: int) -> dict:
        self.need_loaded()
        w = self.waits
        if pattern not in w.patterns:
            raise BadRequest("no such pattern in this run", HTTPStatus.NOT_FOUND)
        mask = w.pattern == w.patterns.index(pattern)
        if klass:
            if klass not in w.classes:
                raise BadRequest("no such class in this run", HTTPStatus.NOT_FOUND)
            mask &= w.klass == w.classes.index(klass)
        idx = np.nonzero(mask)[0]
        top = idx[np.argsort(-w.severity_s[idx], kind="stable")[:limit]]
        return {
            "pattern": pattern, "total": int(len(idx)),
            "total_severity_s": float(w.severity_s[idx].sum()),
            "instances": [{"rank": int(w.rank[i]), "row": int(self.wait_rows[i]),
                           "class": w.classes[w.klass[i]], "start_ns": int(w.start_ns[i]),
                           "end_ns": int(w.end_ns[i]), "severity_s": float(w.severity_s[i]),
                           "callpath": w.callpath[i]} for i in top],
        }

    @cached_property
    def events(self) -> Trace:
        """The trace's events (collectives' bytes), dumped on first use: the timeline needs none."""
        anchor = self.run.trace_anchor
        return open_trace(anchor, None if self.run.bare_trace else self.run.folder, events=True)

    def comm_matrix(self, level: str, t0: int | None, t1: int | None, kind: str = "p2p") -> dict:
        """Bytes and counts from row to column: point-to-point messages, collectives' bytes
        (comm.collective_matrix says where they go), or both."""
        self.need_loaded()
        t = self.trace
        if t is None:
            raise BadRequest("this run has no trace", HTTPStatus.NOT_FOUND)
        if kind not in ("p2p", "collective", "all"):
            raise BadRequest("kind must be p2p, collective or all")
        c = t.columns
        sel = np.ones(len(c["msg_send_time"]), dtype=bool)
        if t0 is not None:
            sel &= c["msg_send_time"] >= t0
        if t1 is not None:
            sel &= c["msg_send_time"] <= t1
        src_loc, dst_loc, nbytes = c["msg_send_loc"][sel], c["msg_recv_loc"][sel], c["msg_bytes"][sel]
        groups = []
        if level == "metahost":
            labels = list(dict.fromkeys(l.metahost for l in self.rows))
            code = {n: i for i, n in enumerate(labels)}
            of_loc = np.asarray([code[l.metahost] for l in self.locations], dtype=np.int64)
            groups = [[n, i, 1] for i, n in enumerate(labels)]
            ranks = []
        elif level == "rank":
            # ranks in the timeline's order (by metahost), so each metahost is one block
            ranks = list(dict.fromkeys(l.rank for l in self.rows))
            metahost = {l.rank: l.metahost for l in reversed(self.rows)}
            code = {r: i for i, r in enumerate(ranks)}
            labels = [f"Rank {r} ({metahost[r]})" for r in ranks]
            of_loc = np.asarray([code[l.rank] for l in self.locations], dtype=np.int64)
            for i, r in enumerate(ranks):
                if not groups or groups[-1][0] != metahost[r]:
                    groups.append([metahost[r], i, 0])
                groups[-1][2] += 1
        else:
            raise BadRequest("level must be metahost or rank")
        n = len(labels)
        p2p_volume, p2p_count = comm.matrix(of_loc[src_loc], of_loc[dst_loc], nbytes, n)
        coll_volume, coll_count = np.zeros((n, n)), np.zeros((n, n), dtype=np.int64)
        if kind != "p2p":
            coll_volume, coll_count = comm.collective_matrix(self.events.columns, of_loc, n, t0, t1)
        volume = (p2p_volume if kind != "collective" else 0) + (coll_volume if kind != "p2p" else 0)
        count = (p2p_count if kind != "collective" else 0) + (coll_count if kind != "p2p" else 0)
        volume, count = np.asarray(volume, dtype=np.float64).reshape(n, n), np.asarray(count).reshape(n, n)
        return {"level": level, "kind": kind, "labels": labels, "ranks": ranks,
                "cells": comm.sparse(volume, count), "groups": groups,
                "total_bytes": float(volume.sum()), "total_messages": int(count.sum()),
                "p2p_bytes": float(p2p_volume.sum()),
                "collective_bytes": float(coll_volume.sum()) if kind != "p2p" else None,
                "profile_bytes_sent": self.profile_bytes_sent()}

    @cached_property
    def base_profile(self):
        """A difference experiment's BASE as a profile of its own (None: not there)."""
        from gridscope.viewer.profile import Profile

        base = self.run.base_experiment if self.run.is_diff else None
        return Profile.from_experiment(base) if base is not None else None

    def base_rank_values(self, metric: int, metric_inclusive: bool, callpath: int | None,
                         callpath_inclusive: bool) -> dict[int, float]:
        """Per-rank BASE values of the diff's metric and call path (matched by unique name and
        path; what BASE lacks is 0), for the diff's per-rank base/new distributions."""
        prof, base = self.profile, self.base_profile
        if prof is None or base is None:
            raise BadRequest("this run has no BASE profile at hand", HTTPStatus.NOT_FOUND)
        if not 0 <= metric < len(prof.metrics) or (callpath is not None and not 0 <= callpath < len(prof.callpaths)):
            raise BadRequest("no such metric or call path", HTTPStatus.NOT_FOUND)
        zeros = {r["rank"]: 0.0 for r in base.ranks}
        uniq = prof.metrics[metric]["uniq"]
        bm = next((m["id"] for m in base.metrics if m["uniq"] == uniq), None)
        bc = None
        if callpath is not None:
            path = prof.callpaths[callpath]["path"]
            bc = next((c["id"] for c in base.callpaths if c["path"] == path), None)
            if bc is None:
                return zeros
        return zeros if bm is None else base.rank_values_for(bm, metric_inclusive, bc, callpath_inclusive)

    def group_timeline(self, metahost: str, t0: int, t1: int, width: int,
                       keep_regions: set[int] | None = None) -> dict:
        """A collapsed metahost group as one row: per pixel, its locations' categories, MPI
        share and most common call path (gridscope.viewer.groups)."""
        from gridscope.viewer.groups import group_summary

        self.need_loaded()
        if self.trace is None:
            raise BadRequest("this run has no trace", HTTPStatus.NOT_FOUND)
        locs = [l.index for l in self.rows if l.metahost == metahost]
        if not locs:
            raise BadRequest("no such metahost in this trace", HTTPStatus.NOT_FOUND)
        if t1 <= t0 or not 1 <= width <= MAX_WIDTH:
            raise BadRequest("bad window: want t0 < t1, 1 <= width <= 8192")
        if len(locs) * width > MAX_CELLS:
            raise BadRequest("window too large: ask for fewer pixels")
        return {"metahost": metahost, **group_summary(self.trace, locs, t0, t1, width, keep_regions)}

    def profile_bytes_sent(self) -> float | None:
        """The metric tree's Bytes sent over the whole run (point-to-point and collective)."""
        exp = self.run.experiment
        if exp is None:
            return None
        sev = exp.severities
        return float(sev.loc[sev[N.METRIC] == N.BYTES_SENT, N.VALUE].sum())


class Handler(BaseHTTPRequestHandler):
    server_version = "gridscope-view"
    sys_version = ""

    # quiet by default: one line per error only
    def log_message(self, fmt, *args):
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        try:
            self._check_host()
            self._route()
        except BadRequest as err:
            self._json({"error": str(err)}, err.status)
        except NotLoaded:  # the page polls /api/load and asks again
            status = self.server.data.load_status()
            self._json({**status, "error": status["error"] or f"{status['step']}… {status['progress']} %"},
                       HTTPStatus.SERVICE_UNAVAILABLE)
        except BrokenPipeError:
            pass
        except Exception as err:  # a bug: say so without a traceback to the client
            print(f"gridscope view: internal error on {self.path!r}: {type(err).__name__}: {err}",
                  file=sys.stderr)
            self._json({"error": "internal error"}, HTTPStatus.INTERNAL_SERVER_ERROR)

    def _refuse(self):
        self._json({"error": "method not allowed"}, HTTPStatus.METHOD_NOT_ALLOWED)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def _check_host(self):
        allowed = getattr(self.server, "allowed_hosts", None)
        if allowed is not None and self.headers.get("Host", "") not in allowed:
            raise BadRequest("unexpected Host header", HTTPStatus.FORBIDDEN)

    def _route(self):
        url = urlsplit(self.path)
        path = url.path
        q = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        data: ViewerData = self.server.data
        if path == "/" or path == "/index.html":
            return self._static("index.html")
        if path.startswith("/static/"):
            return self._static(path[len("/static/"):])
        if path.startswith("/files/"):
            return self._download(path[len("/files/"):])
        if path == "/api/meta":
            return self._json(data.meta())
        if path == "/api/load":
            return self._json(data.load_status())
        if path == "/api/profile":
            if data.profile is None:
                raise BadRequest("this run has no profile.cubex", HTTPStatus.NOT_FOUND)
            return self._json(data.profile.overview())
        if path == "/api/profile/system":
            if data.profile is None:
                raise BadRequest("this run has no profile.cubex", HTTPStatus.NOT_FOUND)
            cp = q.get("callpath", "")
            if q.get("of", "") not in ("", "base"):
                raise BadRequest("of must be base or empty")
            lookup = data.base_rank_values if q.get("of") == "base" else data.profile.rank_values_for
            try:
                values = lookup(
                    _int(q, "metric"), q.get("mincl", "1") == "1",
                    None if cp in ("", "all") else _int(q, "callpath"), q.get("cincl", "1") == "1")
            except ValueError as err:
                raise BadRequest(str(err), HTTPStatus.NOT_FOUND) from None
            return self._json({"values": [[r, v] for r, v in values.items()]})
        if path == "/api/timeline":
            data.need_loaded()
            nrows = len(data.rows)
            return self._json(data.timeline(_int(q, "t0"), _int(q, "t1"), _int(q, "width"),
                                             _int(q, "r0", 0), _int(q, "r1", nrows)))
        if path == "/api/timeline/group":
            return self._json(data.group_timeline(q.get("metahost", ""), _int(q, "t0"), _int(q, "t1"), _int(q, "width"),
                                                  _int_set(q, "regions")))
        if path == "/api/waitstates":
            limit = max(1, min(_int(q, "limit", 200), 5000))
            return self._json(data.waitstate_list(q.get("pattern", ""), q.get("class") or None, limit))
        if path == "/api/window":
            data.need_loaded()
            if data.trace is None:
                raise BadRequest("this run has no trace", HTTPStatus.NOT_FOUND)
            from gridscope.viewer.window import window_summary

            return self._json(window_summary(data.trace, data.rows, _int(q, "t0"), _int(q, "t1")))
        if path == "/api/comm":
            t0 = _int(q, "t0") if q.get("t0") else None
            t1 = _int(q, "t1") if q.get("t1") else None
            return self._json(data.comm_matrix(q.get("level", "metahost"), t0, t1, q.get("kind", "p2p")))
        raise BadRequest("not found", HTTPStatus.NOT_FOUND)

    # ------------------------------------------------------------- responses
    def _headers(self, status, ctype, length):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(length))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

    def _json(self, obj, status=HTTPStatus.OK):
        body = fastjson.dumps(obj)
        self._headers(status, "application/json; charset=utf-8", len(body))
        if self.command != "HEAD":
            self.wfile.write(body)

    def _static(self, name: str):
        root: Path = self.server.static_root
        # only plain names below the static folder: no '..', no absolute paths, no hidden files
        parts = name.split("/")
        if not name or any(p in ("", ".", "..") or p.startswith(".") or "\\" in p for p in parts):
            raise BadRequest("not found", HTTPStatus.NOT_FOUND)
        target = (root / name).resolve()
        if not target.is_relative_to(root) or not target.is_file() or target.suffix not in STATIC_TYPES:
            raise BadRequest("not found", HTTPStatus.NOT_FOUND)
        body = target.read_bytes()
        ctype = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}.get(
            target.suffix, mimetypes.guess_type(target.name)[0] or "application/octet-stream")
        self._headers(HTTPStatus.OK, f"{ctype}; charset=utf-8" if ctype.startswith("text") else ctype, len(body))
        if self.command != "HEAD":
            self.wfile.write(body)

    def _download(self, name: str):
        data: ViewerData = self.server.data
        if name not in DOWNLOADABLE or data.run.bare_trace or not (data.run.folder / name).is_file():
            raise BadRequest("not found", HTTPStatus.NOT_FOUND)
        body = (data.run.folder / name).read_bytes()
        ctype = "application/json" if name.endswith(".json") else "application/octet-stream"
        self._headers(HTTPStatus.OK, ctype, len(body))
        if self.command != "HEAD":
            self.wfile.write(body)


def _int(q: dict, name: str, default: int | None = None) -> int:
    raw = q.get(name)
    if raw is None or raw == "":
        if default is None:
            raise BadRequest(f"missing parameter {name}")
        return default
    try:
        return int(raw)
    except ValueError:
        raise BadRequest(f"parameter {name} must be an integer") from None


def _int_set(q: dict, name: str) -> set[int] | None:
    """A comma-separated list of integers (absent: None, empty: the empty set)."""
    raw = q.get(name)
    if raw is None:
        return None
    try:
        return {int(v) for v in raw.split(",") if v}
    except ValueError:
        raise BadRequest(f"parameter {name} must be integers separated by commas") from None


def _finite(obj):
    """A copy with NaN/inf replaced by None: browsers' JSON.parse rejects them."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _in_background(work):
    """Start WORK in a thread; the returned function waits for it and re-raises its error."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(work)
    pool.shutdown(wait=False)  # the thread ends with WORK
    return future.result


def make_server(run_folder: str | os.PathLike, host: str = "127.0.0.1", port: int = 0,
                verbose: bool = False) -> ThreadingHTTPServer:
    """Load the run's profile and bind the server at once; the trace is dumped (the first
    time) and the wait states read in the background (server.data.load_status(), and
    wait_loaded() for callers that want it all). Call serve_forever()."""
    path = Path(run_folder)
    if (path / "summary.json").is_file() or not (path.suffix == ".otf2" or (path / "traces.otf2").is_file()):
        run = RunFolder(run_folder)
        anchor, cache_folder = run.trace_anchor, run.folder
        run.experiment  # a damaged profile is refused here, before listening
    else:  # a bare trace: its dump goes to the user's cache, never beside the trace
        from gridscope.viewer.trace import find_anchor

        anchor = find_anchor(path)
        run = RunFolder.for_trace(anchor)
        cache_folder = None
    data = ViewerData.in_background(run, anchor, cache_folder)
    root = static_dir()
    server_class = ThreadingHTTPServer
    if ":" in host:  # an IPv6 address
        import socket

        server_class = type("ThreadingHTTPServerV6", (ThreadingHTTPServer,), {"address_family": socket.AF_INET6})
    try:
        server = server_class((host, port), Handler)
    except OSError as err:
        raise GridscopeError(f"{host}:{port}", f"cannot listen: {err.strerror}") from None
    server.daemon_threads = True
    server.data = data
    server.static_root = root
    server.verbose = verbose
    bound = server.server_address[1]
    if host in LOOPBACK:
        server.allowed_hosts = {f"127.0.0.1:{bound}", f"localhost:{bound}", f"[::1]:{bound}"}
    else:
        server.allowed_hosts = None
    return server


def story_of(summary: dict, is_diff: bool) -> dict:
    """The words the terminal and the report lead with (gridscope.analysis.story), for the
    status line and the Summary tab; a difference experiment gets its change story."""
    from gridscope.analysis import story
    from gridscope.diff.story import story_lines

    if is_diff:
        return {"shape": story_lines(summary.get("story") or {}), "findings": [], "none": "", "path": None,
                "links": []}
    return {"shape": story.shape_lines(summary), "findings": story.finding_items(summary, top=5),
            "none": story.no_findings_line(summary), "path": story.path_line(summary),
            "links": story.link_rows(summary)}
