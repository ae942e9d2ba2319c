"""Cube algebra: difference and sum on unified trees, never touching the inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cube_samples import experiment
from gridscope.cube import read_cubex, write_cubex
from gridscope.cube.algebra import ALL_RANKS, add, collapse_system, subtract
from gridscope.cube.layout import layout_of
from gridscope.cube.model import walk_metrics

KEY = ["metric", "callpath", "rank"]


def dense(exp):
    """Per metric the (call path × rank) array, on EXP's own layout."""
    return layout_of(exp, "test").dense(exp.severities)


def as_series(exp) -> pd.Series:
    return exp.severities.set_index(KEY).value.sort_index()


def test_difference_with_itself_is_zero_everywhere(tmp_path):
    a = experiment()
    d = subtract(a, a)
    assert d.severities.empty
    assert set(d.callpaths) == set(a.callpaths)
    assert {m.uniq_name for m, _ in walk_metrics(d.metrics)} >= {"time", "late_sender", "visits"}
    write_cubex(d, tmp_path / "d.cubex")
    back = read_cubex(tmp_path / "d.cubex")
    for values in dense(back).values():
        assert not values.any()


def test_difference_values_and_types():
    base, new = experiment(scale=1.0), experiment(scale=0.25)
    d = subtract(new, base)
    s = as_series(d)
    # late_sender = 0.75·scale per rank: 0.1875 − 0.75
    assert s[("late_sender", "main/cgiteration/MPI_Recv", 0)] == pytest.approx(-0.5625)
    assert s[("wait_at_barrier", "main/ReadFieldsFromTrace/MPI_Barrier", 1)] == pytest.approx(-1.5)
    assert ("time", "main", 0) not in s.index  # unchanged: zero, not listed
    assert all(m.dtype == "DOUBLE" for m in d.metrics)
    assert d.severities["rank"].dtype == "int32"


def test_a_minus_b_plus_b_reproduces_a():
    a = experiment(scale=1.0, extra_path=True)
    b = experiment(scale=0.3, ranks=6)
    a_copy = a.severities.copy()
    back = add(subtract(a, b), b)
    pd.testing.assert_frame_equal(a.severities, a_copy)
    got = as_series(back)
    want = as_series(a)
    merged = pd.concat([got.rename("got"), want.rename("want")], axis=1).fillna(0.0)
    np.testing.assert_allclose(merged.got, merged.want, rtol=1e-12, atol=1e-12)
    assert set(back.callpaths) == set(a.callpaths) | set(b.callpaths)
    assert len(back.locations) == 6


def test_differing_call_trees_keep_new_and_removed_paths():
    base = experiment(extra_path=False)
    new = experiment(extra_path=True)
    d = subtract(new, base)
    s = as_series(d)
    assert s[("mpi", "main/cgiteration/MPI_Irecv", 2)] == pytest.approx(0.0625)  # new path
    removed = subtract(base, new)
    assert as_series(removed)[("mpi", "main/cgiteration/MPI_Irecv", 2)] == pytest.approx(-0.0625)
    paths = list(d.callpaths)
    assert paths.index("main/cgiteration") < paths.index("main/cgiteration/MPI_Irecv")


def test_differing_rank_counts_union_and_collapse():
    base = experiment(ranks=4)
    new = experiment(ranks=6, scale=0.5)
    d = subtract(new, base)
    assert list(d.locations["rank"]) == [0, 1, 2, 3, 4, 5]
    s = as_series(d)
    # rank 5 exists only in NEW: its full value shows up (missing = 0)
    assert s[("time", "main/cgiteration", 5)] == pytest.approx(4.0)
    c = subtract(new, base, collapse=True)
    assert list(c.locations.metahost) == [ALL_RANKS]
    total_new = new.severities.groupby("metric").value.sum()
    total_base = base.severities.groupby("metric").value.sum()
    cs = c.severities.groupby("metric").value.sum()
    for metric in ("time", "late_sender", "wait_at_nxn"):
        assert cs[metric] == pytest.approx(total_new[metric] - total_base[metric])


def test_metric_trees_merge_by_name():
    from gridscope.cube import Experiment, Metric
    a = experiment()
    extra = (Metric("time", "Time", "sec", children=(
        Metric("mpi", "MPI", "sec", children=(Metric("late_receiver", "Late Receiver", "sec"),)),)),)
    b = Experiment(extra, a.callpaths, a.locations,
                   pd.DataFrame({"metric": ["late_receiver"], "callpath": ["main"],
                                 "rank": [0], "value": [3.0]}))
    d = subtract(a, b)
    mpi = d.metrics[0].children[0]
    assert [m.uniq_name for m in mpi.children] == ["late_sender", "wait_at_barrier",
                                                   "wait_at_nxn", "late_receiver"]
    assert as_series(d)[("late_receiver", "main", 0)] == -3.0


def test_collapse_system_does_not_touch_input():
    a = experiment()
    before = a.locations.copy()
    c = collapse_system(a)
    pd.testing.assert_frame_equal(a.locations, before)
    assert c.severities["value"].sum() == pytest.approx(a.severities["value"].sum())
