"""/api/timeline/group: a collapsed metahost group as one row, checked against the rows
themselves (the per-pixel samples /api/timeline sends for each of the group's ranks)."""

from __future__ import annotations

import json
import threading
from collections import Counter

import numpy as np
import pytest

from gridscope.viewer.server import make_server
from test_server import get_json, request
from viewer_shared import static_env


@pytest.fixture(scope="module")
def server(demo_run):
    import os

    os.environ.update(static_env())
    srv = make_server(demo_run, "127.0.0.1", 0)
    srv.data.wait_loaded()  # the trace is read in the background
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("metahost", ["jsc", "brs"])
def test_group_row_summarises_its_ranks_per_pixel(server, metahost):
    meta = get_json(server, "/api/meta")
    rows = [i for i, r in enumerate(meta["rows"]) if r["metahost"] == metahost]
    width, t1 = 16, meta["duration_ns"]
    detail = get_json(server, f"/api/timeline?t0=0&t1={t1}&width={width}&r0={rows[0]}&r1={rows[-1] + 1}")["rows"]
    assert not any(d["exact"] for d in detail)  # per-pixel samples, as the group's are
    group = get_json(server, f"/api/timeline/group?t0=0&t1={t1}&width={width}&metahost={metahost}")
    assert group["metahost"] == metahost and group["locations"] == len(rows) == 4
    category = meta["callpaths"]["category"]
    for p in range(width):
        cps = [d["cp"][p] for d in detail]
        # how many ranks are in each category at the pixel's centre
        want = Counter(category[cp] for cp in cps if cp >= 0)
        got = {int(c): counts[p] for c, counts in group["categories"].items() if counts[p]}
        assert got == dict(want), p
        # the exact MPI share, averaged over the ranks (0.1 % rounding per row)
        assert abs(group["mpi"][p] - sum(d["mpi"][p] for d in detail) / len(detail)) <= 1
        # the most common call path (ties: the lower id)
        ranked = sorted(Counter(cp for cp in cps if cp >= 0).items(), key=lambda kv: (-kv[1], kv[0]))
        assert (group["dominant"][p], group["dominant_count"][p]) == (ranked[0] if ranked else (-1, 0))
    # the synthetic run is mostly MPI: the samples must have found some
    assert "2" in group["categories"] and "3" in group["categories"]


def test_group_row_counts_functions_outside_the_filter_apart(server):
    """With the function filter's regions, a location in another function counts in
    `filtered`, not in its category; per pixel the counts still add up."""
    meta = get_json(server, "/api/meta")
    allreduce = [int(k) for k, r in meta["regions"].items() if r["name"] == "MPI_Allreduce"]
    view = f"t0=0&t1={meta['duration_ns']}&width=16&metahost=jsc"
    whole = get_json(server, f"/api/timeline/group?{view}")
    kept = get_json(server, f"/api/timeline/group?{view}&regions={','.join(map(str, allreduce))}")
    assert "filtered" not in whole
    assert set(kept["categories"]) <= {"3"}  # only the collective's category is left in colour
    for p in range(16):
        total = sum(c[p] for c in whole["categories"].values())
        assert sum(c[p] for c in kept["categories"].values()) + kept["filtered"][p] == total, p
        assert kept["categories"].get("3", [0] * 16)[p] <= whole["categories"].get("3", [0] * 16)[p]
    assert any(kept["filtered"]) and any(kept["categories"]["3"])
    nothing = get_json(server, f"/api/timeline/group?{view}&regions=")
    assert nothing["categories"] == {} and nothing["filtered"] == [sum(c[p] for c in whole["categories"].values()) for p in range(16)]
    assert request(server, f"/api/timeline/group?{view}&regions=1,x")[0].status == 400


@pytest.mark.parametrize("query, status", [
    ("metahost=nowhere&t0=0&t1=100&width=10", 404),
    ("metahost=jsc&t0=100&t1=100&width=10", 400),
    ("metahost=jsc&t0=0&t1=100&width=0", 400),
    ("metahost=jsc&t1=100&width=10", 400),
    ("metahost=jsc&t0=x&t1=100&width=10", 400),
])
def test_group_row_bad_requests(server, query, status):
    resp, body = request(server, f"/api/timeline/group?{query}")
    assert resp.status == status
    error = json.loads(body)["error"]
    assert error and "\n" not in error


class _ThreeLocations:
    """A trace of three locations, call path 0 computation, 1 point-to-point MPI:
    0: computes in [0, 50), in MPI in [50, 100); 1: in MPI in [0, 100); 2: only after t = 200."""

    cp_category = np.array([1, 2])
    cp_is_mpi = np.array([False, True])
    _segments = {0: ([0, 50, 100], [0, 1, -1], [0, 0, 50]), 1: ([0, 100], [1, -1], [0, 100]),
                 2: ([200, 300], [0, -1], [0, 0])}

    def segments(self, loc):
        return tuple(np.asarray(a, dtype=np.int64) for a in self._segments[loc])


def test_group_summary_by_hand():
    """Two pixels worked out by hand: a location with nothing in the window counts as idle,
    a tie for the most common call path goes to the lower id."""
    from gridscope.viewer.groups import group_summary

    out = group_summary(_ThreeLocations(), [0, 1, 2], 0, 100, 2)
    assert out["locations"] == 3
    assert out["categories"] == {"1": [1, 0], "2": [1, 2]}
    assert out["mpi"] == [333, 667]  # (0 + 1 + 0) / 3 and (1 + 1 + 0) / 3 of each pixel
    assert out["dominant"] == [0, 1] and out["dominant_count"] == [1, 2]
