"""Root causes on the Python side, on hand-built engine output (no engine run): the causes
file, summary.json's root_causes / cause_pairs / wait_classes / critical_path, the metrics
derived from the critical path, the Cube trees and the critical path's timeline pieces.

The scenario (values derived by hand in the comments): ranks 0 and 1 on FZJ work 4 s and
5 s, rank 2 on FH-BRS 6 s, then all meet in a barrier. Ranks 0 and 1 wait 2 s and 1 s there,
caused by rank 2's work; the critical path runs on rank 2: 6 s of work, 0.5 s of barrier.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from synthetic_engine import Process, analysis_folder, write_engine

MAIN, WORK, BARRIER = "main", "main/work", "main/MPI_Barrier"
HOSTS = ["FZJ", "FZJ", "FH-BRS"]

SEVERITIES = [
    ("time", "", WORK, 0, 4.0), ("time", "", WORK, 1, 5.0), ("time", "", WORK, 2, 6.0),
    ("time", "", BARRIER, 0, 2.5), ("time", "", BARRIER, 1, 1.5), ("time", "", BARRIER, 2, 0.5),
    ("wait_at_barrier", "grid", BARRIER, 0, 2.0), ("wait_at_barrier", "grid", BARRIER, 1, 1.0),
    # not delay-analysed: stays in the time without waits (0.5 s of rank 0's barrier)
    ("barrier_completion", "grid", BARRIER, 0, 0.25),
    ("delay_barrier_short", "grid", WORK, 2, 3.0),
    ("wait_direct_collective", "grid", BARRIER, 0, 2.0), ("wait_direct_collective", "grid", BARRIER, 1, 1.0),
    ("wait_terminal_collective", "grid", BARRIER, 0, 2.0), ("wait_terminal_collective", "grid", BARRIER, 1, 1.0),
    ("critical_path", "", WORK, 2, 6.0), ("critical_path", "", BARRIER, 2, 0.5),
]
CAUSES = [
    ("wait_at_barrier", "grid", "computation", WORK, 2, "FZJ", 3.0, 0.0),
    ("wait_at_barrier", "grid", "wan", BARRIER, 2, "FZJ", 0.5, 0.0),
    ("late_sender", "local", "communication", BARRIER, 0, "FZJ", 0.25, 0.125),
]
CALLPATHS = [MAIN, WORK, BARRIER]


def one_process(**kw) -> list[Process]:
    return [Process(CALLPATHS, SEVERITIES, CAUSES, **kw)]


def two_processes() -> list[Process]:
    """The same rows split by rank over two processes that number their call paths differently."""
    def mine(rows, rank_at, ranks):
        return [r for r in rows if r[rank_at] in ranks]

    return [Process(CALLPATHS, mine(SEVERITIES, 3, {0, 1}), mine(CAUSES, 4, {0, 1})),
            Process([MAIN, BARRIER, WORK], mine(SEVERITIES, 3, {2}), mine(CAUSES, 4, {2}))]


@pytest.fixture
def trace_file(tmp_path):
    path = tmp_path / "traces.otf2"
    path.write_text("")
    return str(path)


def summary_of(tmp_path, trace, processes, name="out", **kw) -> dict:
    return analysis_folder(tmp_path / name, trace, HOSTS, processes, **kw)


def test_summary_root_causes_pairs_and_classes(tmp_path, trace_file):
    s = summary_of(tmp_path, trace_file, one_process())
    assert s["root_cause_analysis"] == {"enabled": True}
    assert s["root_causes"] == [
        {"callpath": WORK, "metahost": "FH-BRS", "kind": "computation", "pattern": "wait_at_barrier",
         "class": "grid", "short_term_s": 3.0, "long_term_s": 0.0, "total_s": 3.0, "waiting_s": {"FZJ": 3.0}},
        {"callpath": BARRIER, "metahost": "FH-BRS", "kind": "wan", "pattern": "wait_at_barrier",
         "class": "grid", "short_term_s": 0.5, "long_term_s": 0.0, "total_s": 0.5, "waiting_s": {"FZJ": 0.5}},
        {"callpath": BARRIER, "metahost": "FZJ", "kind": "communication", "pattern": "late_sender",
         "class": "local", "short_term_s": 0.25, "long_term_s": 0.125, "total_s": 0.375,
         "waiting_s": {"FZJ": 0.375}}]
    assert s["cause_pairs"] == [
        {"cause": "FH-BRS", "waiting": "FZJ", "short_term_s": 3.5, "long_term_s": 0.0},
        {"cause": "FZJ", "waiting": "FZJ", "short_term_s": 0.25, "long_term_s": 0.125}]
    assert s["wait_classes"] == {"direct": {"grid": 3.0, "local": 0.0}, "indirect": {"grid": 0.0, "local": 0.0},
                                 "propagating": {"grid": 0.0, "local": 0.0}, "terminal": {"grid": 3.0, "local": 0.0}}
    # imbalance of work: 6 s on the path - mean of (4, 5, 6) = 1 s, all on rank 2
    assert s["critical_path"] == [
        {"callpath": WORK, "metahost": "FH-BRS", "seconds": 6.0, "imbalance_s": 1.0},
        {"callpath": BARRIER, "metahost": "FH-BRS", "seconds": 0.5, "imbalance_s": 0.0}]


def test_ranks_of_one_metahost_add_up_and_ties_keep_key_order(tmp_path, trace_file):
    causes = [("wait_at_nxn", "grid", "computation", WORK, 0, "FH-BRS", 0.25, 0.0),
              ("wait_at_nxn", "grid", "computation", WORK, 1, "FH-BRS", 0.0625, 0.0),
              ("wait_at_nxn", "grid", "computation", WORK, 1, "FZJ", 0.0625, 0.0),
              ("wait_at_nxn", "grid", "computation", BARRIER, 0, "FH-BRS", 0.375, 0.0)]
    s = summary_of(tmp_path, trace_file, [Process(CALLPATHS, SEVERITIES, causes)])
    assert [(r["callpath"], r["total_s"], r["waiting_s"]) for r in s["root_causes"]] == [
        (BARRIER, 0.375, {"FH-BRS": 0.375}), (WORK, 0.375, {"FH-BRS": 0.3125, "FZJ": 0.0625})]
    assert s["cause_pairs"] == [{"cause": "FZJ", "waiting": "FH-BRS", "short_term_s": 0.6875, "long_term_s": 0.0},
                                {"cause": "FZJ", "waiting": "FZJ", "short_term_s": 0.0625, "long_term_s": 0.0}]


def test_any_split_over_processes_gives_the_same_summary(tmp_path, trace_file):
    one = summary_of(tmp_path, trace_file, one_process(), "one")
    two = summary_of(tmp_path, trace_file, two_processes(), "two")
    for s in (one, two):
        s.pop("analysis")
    assert one == two
    assert (tmp_path / "one" / "profile.cubex").read_bytes() == (tmp_path / "two" / "profile.cubex").read_bytes()


@pytest.mark.parametrize("engine_block", [False, None], ids=["off", "engine_without_root_causes"])
def test_root_causes_off_keeps_the_keys_empty(tmp_path, trace_file, engine_block):
    rows = [r for r in SEVERITIES if not r[0].startswith(("delay", "wait_", "critical"))]
    s = summary_of(tmp_path, trace_file, [Process(CALLPATHS, rows)], root_causes=engine_block)
    assert s["root_cause_analysis"] == {"enabled": False}
    assert s["root_causes"] == [] and s["cause_pairs"] == [] and s["critical_path"] == []
    assert s["wait_classes"] == {c: {"grid": 0.0, "local": 0.0} for c in ("direct", "indirect", "propagating", "terminal")}
    assert not (tmp_path / "out" / "critical_path.feather").exists()


def test_engine_meta_fields_are_copied(tmp_path, trace_file):
    scratch = write_engine(tmp_path / "e", HOSTS, one_process(), meta_extra={
        "root_causes": {"enabled": True, "backward_replay": "v1"}})
    from gridscope.analysis.engine_files import read_head
    from gridscope.analysis.engine_output import read_profile
    from gridscope.analysis.summary import build_summary

    s = build_summary(read_profile(scratch, read_head(scratch)), trace_file, HOSTS)
    assert s["root_cause_analysis"] == {"enabled": True, "backward_replay": "v1"}


# ---------------------------------------------------------------- the derived metrics

def cube_values(folder) -> dict:
    from gridscope.cube import read_cubex

    sev = read_cubex(folder / "profile.cubex").severities
    return {(m, c, int(r)): v for m, c, r, v in zip(sev.metric, sev.callpath, sev["rank"], sev.value)}


@pytest.mark.parametrize("rules", ["scalasca", "gridscope"])
def test_cube_holds_delay_wait_class_and_critical_path_trees(tmp_path, trace_file, rules):
    summary_of(tmp_path, trace_file, one_process(), meta_extra={"rules": rules})
    v = cube_values(tmp_path / "out")
    assert v[("delay_barrier_short_grid", WORK, 2)] == 3.0
    assert v[("wait_direct_collective_grid", BARRIER, 0)] == 2.0
    assert v[("wait_terminal_collective_grid", BARRIER, 1)] == 1.0
    # the imbalance is part of the profile: the node keeps the rest
    assert v[("critical_path", WORK, 2)] == 5.0
    assert v[("critical_path_imbalance", WORK, 2)] == 1.0
    assert v[("critical_path", BARRIER, 2)] == 0.5
    # activity impact: min(cp(c), t(c, r)); t(barrier, 0) = 2.5 - 2 (Barrier Completion stays)
    for rank, work in ((0, 4.0), (1, 5.0), (2, 6.0)):
        assert v[("critical_path_activities", WORK, rank)] == work
        assert v[("critical_path_activities", BARRIER, rank)] == 0.5
    # waiting W(r) = 6.5 - (4.5, 5.5, 6.5) = (2, 1, 0) on the work's excess (2, 1, 0): 3 s, charged
    # on rank 2 under gridscope's rules; rank 2's excess is 0, so scout's factor is 0/0 and it
    # charges nothing (Scalasca's rules)
    imbalance_impact = 3.0 if rules == "gridscope" else 0.0
    assert v.get(("critical_imbalance_impact", WORK, 2), 0.0) == imbalance_impact
    assert not any(m == "non_critical_path_activities" for m, _, _ in v)
    impact = sum(x for (m, _, _), x in v.items()
                 if m in ("critical_path_activities", "critical_imbalance_impact", "non_critical_path_activities"))
    assert impact == pytest.approx(3 * 6.5 - 3.0 + imbalance_impact)  # gridscope: every rank over the path's length
    # the time tree is untouched: time and mpi still add up to the run's time
    time = sum(x for (m, _, _), x in v.items()
               if m in ("time", "mpi") or m.startswith(("wait_at_barrier_", "barrier_completion_")))
    assert time == pytest.approx(19.5)


def engine_output(severities, ranks=3):
    from gridscope.analysis.engine_files import EngineOutput, Severity, SeverityColumns

    paths = (MAIN, WORK, BARRIER)
    meta = {"ranks": ranks}
    return EngineOutput(meta, paths, frozenset({BARRIER}),
                        SeverityColumns.from_rows([Severity(*r) for r in severities], paths), ())


def values(metrics, name):
    v = metrics.derived[name]
    return {(int(c), int(r)): x for c, r, x in zip(v.callpath, v.rank, v.value)}


def test_path_shared_by_ranks_shares_imbalance_and_impact():
    """Work on the path 2 s on rank 0 and 4 s on rank 2: cp(work) = 6, imbalance 6 - 5 = 1,
    shared 1/3 : 2/3; impact 3 s shared the same way. Rank 1 runs 7 s of `main` off the path."""
    from gridscope.analysis.critical_path import ACTIVITY_IMPACT, IMBALANCE, IMBALANCE_IMPACT, NON_CRITICAL, compute

    rows = [("time", "", WORK, 0, 4.0), ("time", "", WORK, 1, 5.0), ("time", "", WORK, 2, 6.0),
            ("time", "", MAIN, 1, 7.0), ("critical_path", "", WORK, 0, 2.0), ("critical_path", "", WORK, 2, 4.0)]
    m = compute(engine_output(rows), 3)
    w, main = 1, 0
    assert values(m, IMBALANCE) == pytest.approx({(w, 0): 1 / 3, (w, 2): 2 / 3})
    # W = 6 - (4, 12, 6) = (2, -6, 0); excess of work (2, 1, 0): scale (1, -6, 0) -> costs 2 - 6 = -4
    assert values(m, IMBALANCE_IMPACT) == {}
    assert values(m, ACTIVITY_IMPACT) == {(w, 0): 4.0, (w, 1): 5.0, (w, 2): 6.0}
    assert values(m, NON_CRITICAL) == {(main, 1): 7.0}


def test_no_critical_path_derives_nothing():
    from gridscope.analysis.critical_path import compute

    m = compute(engine_output([("time", "", WORK, 0, 4.0)]), 3)
    assert len(m.profile) == 0 and m.derived == {}


def test_rank_without_excess_adds_no_impact():
    """A rank whose time equals the path in every call path waits 0 and has no excess: no
    division by zero (Scalasca would divide 0 by 0)."""
    from gridscope.analysis.critical_path import IMBALANCE_IMPACT, compute

    rows = [("time", "", WORK, 0, 6.0), ("time", "", WORK, 1, 6.0), ("critical_path", "", WORK, 0, 6.0)]
    m = compute(engine_output(rows, ranks=2), 2)
    assert values(m, IMBALANCE_IMPACT) == {}


# ---------------------------------------------------------------- bad engine files

def read_all(folder):
    from gridscope.analysis.engine_files import read_head
    from gridscope.analysis.engine_output import read_profile

    return read_profile(folder, read_head(folder))


def test_truncated_causes_file_is_one_clear_error(tmp_path):
    from gridscope.errors import GridscopeError

    folder = write_engine(tmp_path / "e", HOSTS, one_process())
    path = folder / "causes.0.bin"
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.raises(GridscopeError) as err:
        read_all(folder)
    assert err.value.line() == (f"gridscope: {path}: truncated: 91 bytes is not a whole number of 32-byte "
                                "cause rows")
    assert "\n" not in err.value.line()


def test_missing_causes_file_when_root_causes_are_on(tmp_path):
    from gridscope.errors import GridscopeError

    folder = write_engine(tmp_path / "e", HOSTS, one_process())
    (folder / "causes.0.bin").unlink()
    with pytest.raises(GridscopeError, match=r"causes\.0\.bin: engine output missing \(root causes are on\)"):
        read_all(folder)


@pytest.mark.parametrize("field,value,problem", [
    ("cp", 9, "unknown call path"), ("kind", 3, "unknown kind of cause"), ("rank", 3, "unknown rank"),
    ("wait_metahost", 2, "unknown metahost"), ("cls", 2, "unknown class"),
    ("pattern", 0, "wait state without delay analysis"), ("short", np.nan, "not a finite number")])
def test_bad_cause_rows_are_one_clear_error(tmp_path, field, value, problem):
    from gridscope.analysis.root_causes import CAUSE_DTYPE
    from gridscope.errors import GridscopeError

    folder = write_engine(tmp_path / "e", HOSTS, one_process())
    rows = np.fromfile(folder / "causes.0.bin", dtype=CAUSE_DTYPE)
    rows[field][1] = value
    rows.tofile(folder / "causes.0.bin")
    with pytest.raises(GridscopeError, match=problem):
        read_all(folder)


def test_driver_stops_at_a_truncated_causes_file_before_writing(tmp_path, trace_file):
    """The driver's error path (the command line prints the GridscopeError as its one line):
    nothing is written before the engine files are checked."""
    from gridscope.analysis.driver import write_outputs
    from gridscope.analysis.engine_files import read_head
    from gridscope.errors import GridscopeError

    folder = write_engine(tmp_path / "e", HOSTS, one_process())
    with open(folder / "causes.0.bin", "ab") as f:
        f.write(b"\0" * 7)
    (tmp_path / "out").mkdir()
    with pytest.raises(GridscopeError, match="truncated"):
        write_outputs(folder, read_head(folder), tmp_path / "out", trace_file, HOSTS)
    assert not (tmp_path / "out" / "profile.cubex").exists()


# ---------------------------------------------------------------- timeline pieces

PIECES = [  # a three-rank pipeline backward, as the engine walks it; rank 0's stretch in two touching pieces
    (2, 3.0, 4.0), (1, 1.25, 3.0), (0, 1.0, 1.25), (0, 0.0, 1.0)]


def test_pieces_become_stretches_and_links(tmp_path, trace_file):
    from gridscope.analysis.critical_path_pieces import links, read_critical_path

    summary_of(tmp_path, trace_file, [Process([MAIN, WORK], pieces=PIECES), Process([MAIN])])
    path = read_critical_path(tmp_path / "out")
    assert path.to_dict("list") == {"rank": [0, 1, 2], "start_s": [0.0, 1.25, 3.0], "end_s": [1.25, 3.0, 4.0]}
    assert str(path["rank"].dtype) == "int32"
    assert links(path).to_dict("list") == {"cause_rank": [0, 1], "cause_s": [1.25, 3.0],
                                           "waiting_rank": [1, 2], "waiting_s": [1.25, 3.0]}


def test_truncated_pieces_file_is_one_clear_error(tmp_path):
    from gridscope.analysis.critical_path_pieces import read_pieces
    from gridscope.analysis.engine_files import read_head
    from gridscope.errors import GridscopeError

    folder = write_engine(tmp_path / "e", HOSTS, [Process([MAIN, WORK], pieces=[(0, 0.0, 1.0)])])
    path = folder / "critical_path.bin"
    path.write_bytes(path.read_bytes()[:20])
    with pytest.raises(GridscopeError, match=r"critical_path\.bin: truncated: 20 bytes"):
        read_pieces(folder, read_head(folder))


def test_stale_critical_path_file_is_removed(tmp_path, trace_file):
    summary_of(tmp_path, trace_file, [Process([MAIN, WORK], pieces=[(0, 0.0, 1.0)])])
    assert (tmp_path / "out" / "critical_path.feather").is_file()
    summary_of(tmp_path, trace_file, [Process([MAIN, WORK])])
    assert not (tmp_path / "out" / "critical_path.feather").exists()
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["critical_path"] == []


# ---------------------------------------------------------------- load(), terminal

def test_load_exposes_root_causes_and_critical_path_as_typed_tables(tmp_path, trace_file):
    import gridscope

    procs = one_process(pieces=[(2, 0.0, 6.0), (2, 6.0, 6.5)])
    summary_of(tmp_path, trace_file, procs)
    a = gridscope.load(tmp_path / "out")
    assert list(a.root_causes.columns) == ["callpath", "metahost", "kind", "pattern", "class", "short_term_s",
                                           "long_term_s", "total_s"]
    assert a.root_causes["total_s"].tolist() == [3.0, 0.5, 0.375]
    assert a.root_causes["kind"].tolist() == ["computation", "wan", "communication"]
    assert str(a.root_causes["kind"].dtype) == "category" and str(a.root_causes["total_s"].dtype) == "float64"
    assert a.critical_path.to_dict("list") == {"callpath": [WORK, BARRIER], "metahost": ["FH-BRS", "FH-BRS"],
                                               "seconds": [6.0, 0.5], "imbalance_s": [1.0, 0.0]}
    assert a.cause_pairs["short_term_s"].tolist() == [3.5, 0.25]
    assert a.critical_path_timeline.to_dict("list") == {"rank": [2], "start_s": [0.0], "end_s": [6.5]}
    delay = a.severities[a.severities.metric == "delay_barrier_short_grid"]
    assert delay[["callpath", "rank", "metahost", "value"]].values.tolist() == [[WORK, 2, "FH-BRS", 3.0]]


def test_load_of_a_folder_without_root_causes_gives_empty_typed_tables(tmp_path, trace_file):
    import gridscope

    summary_of(tmp_path, trace_file, [Process(CALLPATHS, SEVERITIES[:6])], root_causes=None)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    for key in ("root_causes", "critical_path", "cause_pairs", "wait_classes", "root_cause_analysis"):
        del summary[key]  # a folder written before the root causes
    (tmp_path / "out" / "summary.json").write_text(json.dumps(summary))
    a = gridscope.load(tmp_path / "out")
    assert a.root_causes.empty and list(a.root_causes.columns)[-1] == "total_s"
    assert a.critical_path.empty and str(a.critical_path["seconds"].dtype) == "float64"
    assert a.critical_path_timeline.empty and str(a.critical_path_timeline["rank"].dtype) == "int32"


def terminal_text(summary: dict) -> str:
    import io

    from rich.console import Console

    from gridscope.analysis.terminal import print_summary

    buffer = io.StringIO()
    print_summary(summary, Console(file=buffer, width=200))
    return buffer.getvalue()


def test_terminal_says_why_and_shows_the_critical_path(tmp_path, trace_file):
    text = terminal_text(summary_of(tmp_path, trace_file, one_process()))
    assert ("3.000 s of the waiting at FZJ caused by computation in main/work on FH-BRS; 0.500 s by WAN transfer "
            "(in main/MPI_Barrier on FH-BRS); 0.375 s by communication in main/MPI_Barrier on FZJ") in text
    path = text[text.index("Critical path"):]
    assert "6.5 s long" in path
    lines = [line.replace("│", " ") for line in path.splitlines() if "FH-BRS" in line]
    assert lines[0].split() == ["main/work", "FH-BRS", "6.000", "92.3", "%", "1.000"]
    assert lines[1].split() == ["main/MPI_Barrier", "FH-BRS", "0.500", "7.7", "%", "0.000"]


def test_terminal_says_when_root_causes_were_off(tmp_path, trace_file):
    text = terminal_text(summary_of(tmp_path, trace_file, [Process(CALLPATHS, SEVERITIES[:6])], root_causes=False))
    assert "Root causes: not analysed (--no-root-causes)." in text
    assert "Critical path" not in text


def test_why_groups_patterns_and_names_the_rest():
    from gridscope.analysis.why import waiting_by_metahost

    def row(cp, host, kind, pattern, waiting):
        return {"callpath": cp, "metahost": host, "kind": kind, "pattern": pattern, "class": "grid",
                "short_term_s": 0.0, "long_term_s": 0.0, "total_s": sum(waiting.values()), "waiting_s": waiting}

    summary = {"root_causes": [row("a", "X", "computation", "wait_at_barrier", {"Y": 1.0, "X": 0.25}),
                               row("a", "X", "computation", "late_sender", {"Y": 0.5}),
                               row("b", "X", "wan", "late_sender", {"Y": 0.25}),
                               row("c", "Y", "communication", "wait_at_nxn", {"Y": 0.125}),
                               row("d", "Y", "computation", "wait_at_nxn", {"Y": 0.0625})]}
    waiting = waiting_by_metahost(summary)
    assert [(w.metahost, w.seconds) for w in waiting] == [("Y", 1.9375), ("X", 0.25)]
    assert waiting[0].sentence() == ("1.500 s of the waiting at Y caused by computation in a on X; 0.250 s by WAN "
                                     "transfer (in b on X); 0.125 s by communication in c on Y; "
                                     "0.062 s by 1 other cause")


# ---------------------------------------------------------------- pure functions

def test_cause_columns_sort_by_names_and_aggregate_without_files():
    from gridscope.analysis.root_causes import Cause, CauseColumns, cause_pair_rows, root_cause_rows

    paths, hosts = ("b", "a"), ("X", "Y")
    rows = [Cause("wait_at_nxn", "grid", "wan", "b", 1, "Y", 0.5, 0.0),
            Cause("late_sender", "local", "computation", "b", 0, "X", 0.25, 0.5),
            Cause("late_sender", "local", "computation", "a", 0, "X", 1.0, 0.0)]
    causes = CauseColumns.from_rows(rows, paths, hosts)
    # canonical order: pattern name, class, kind, call path string, ...
    assert [paths[c] for c in causes.callpath.tolist()] == ["a", "b", "b"]
    got = root_cause_rows(causes, paths, ["X", "Y"], hosts)
    assert [(r["callpath"], r["metahost"], r["kind"], r["total_s"]) for r in got] == [
        ("a", "X", "computation", 1.0), ("b", "X", "computation", 0.75), ("b", "Y", "wan", 0.5)]
    assert cause_pair_rows(causes, ["X", "Y"], hosts) == [
        {"cause": "X", "waiting": "X", "short_term_s": 1.25, "long_term_s": 0.5},
        {"cause": "Y", "waiting": "Y", "short_term_s": 0.5, "long_term_s": 0.0}]
    assert root_cause_rows(CauseColumns.empty(), paths, ["X"], hosts) == []


def test_engine_block_is_copied_and_enabled_always_present():
    from gridscope.analysis.root_causes import analysis_block, enabled

    assert analysis_block({}) == {"enabled": False} and not enabled({"root_causes": "yes"})
    assert analysis_block({"root_causes": {"enabled": True, "unordered": 0}}) == {"enabled": True, "unordered": 0}


def test_damaged_critical_path_file_is_one_clear_error(tmp_path):
    from gridscope.analysis.critical_path_pieces import read_critical_path
    from gridscope.errors import GridscopeError

    (tmp_path / "critical_path.feather").write_bytes(b"not arrow")
    with pytest.raises(GridscopeError, match=r"critical_path\.feather: not a readable critical-path file"):
        read_critical_path(tmp_path)
    assert read_critical_path(tmp_path / "none") is None


def test_pieces_ending_before_they_start_are_refused(tmp_path):
    from gridscope.analysis.critical_path_pieces import read_pieces
    from gridscope.analysis.engine_files import read_head
    from gridscope.errors import GridscopeError

    folder = write_engine(tmp_path / "e", HOSTS, [Process([MAIN], pieces=[(0, 2.0, 1.0)])])
    with pytest.raises(GridscopeError, match="ends before it starts"):
        read_pieces(folder, read_head(folder))


def test_path_length_and_enabled():
    from gridscope.analysis.why import enabled, path_length

    assert path_length({"critical_path": [{"seconds": 1.5}, {"seconds": 0.25}]}) == 1.75
    assert enabled({}) is None and enabled({"root_cause_analysis": {"enabled": False}}) is False
