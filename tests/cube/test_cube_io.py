"""Cube4 writer and reader: round trips, pycubexr compatibility, Score-P's files."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pandas as pd
import pytest
from pycubexr import CubexParser
from pycubexr.utils.exceptions import MissingMetricError

from cube_samples import experiment
from gridscope.cube import Experiment, Metric, read_cubex, write_cubex
from gridscope.cube.model import make_locations, walk_metrics
from gridscope.errors import GridscopeError

KEY = ["metric", "callpath", "rank"]


def sorted_sev(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.sort_values(KEY).reset_index(drop=True)[KEY + ["value"]]
    return out.astype({"metric": object, "callpath": object, "rank": "int64", "value": float})


def test_round_trip_keeps_trees_values_and_locations(tmp_path):
    exp = experiment(extra_path=True)
    before = exp.severities.copy()
    write_cubex(exp, tmp_path / "a.cubex")
    back = read_cubex(tmp_path / "a.cubex")
    pd.testing.assert_frame_equal(exp.severities, before)  # input untouched
    assert back.metrics == exp.metrics
    assert set(back.callpaths) == set(exp.callpaths)
    assert back.callpaths.index("main") < back.callpaths.index("main/cgiteration/MPI_Irecv")
    pd.testing.assert_frame_equal(back.locations, exp.locations)
    got, want = sorted_sev(back.severities), sorted_sev(exp.severities)
    assert got[KEY].equals(want[KEY])
    np.testing.assert_allclose(got.value, want.value, rtol=0, atol=1e-12)
    assert back.attrs["gridscope::sample"] == "yes"


def test_file_is_ustar_with_sparse_index_per_metric(tmp_path):
    write_cubex(experiment(), tmp_path / "a.cubex")
    raw = (tmp_path / "a.cubex").read_bytes()
    assert raw[257:262] == b"ustar"
    with tarfile.open(tmp_path / "a.cubex") as tar:
        names = tar.getnames()
        index = tar.extractfile("0.index").read()
    n_metrics = len(list(walk_metrics(experiment().metrics)))
    assert "anchor.xml" in names
    assert sorted(n for n in names if n != "anchor.xml") == sorted(
        [f"{i}.index" for i in range(n_metrics)] + [f"{i}.data" for i in range(n_metrics)])
    assert index[:11] == b"CUBEX.INDEX"
    assert index[11:15] == (1).to_bytes(4, "little") and index[17] == 1  # SPARSE


def pycubexr_table(path: Path, rank_of_column: list[int], only=None) -> pd.DataFrame:
    """Every value pycubexr reads, made metric-exclusive, as (metric, callpath, rank)."""
    rows = []
    with CubexParser(path) as cube:
        def callpath(cnode):
            names = []
            while cnode is not None:
                names.append(cube.get_region(cnode).name)
                cnode = cnode.parent
            return "/".join(reversed(names))

        for metric in cube.all_metrics():
            if only is not None and metric.name not in only:
                continue
            try:
                values = cube.get_metric_values(metric)
            except MissingMetricError:  # Score-P leaves all-zero metrics out
                continue
            for cnode in cube.all_cnodes():
                own = np.asarray(values.cnode_values(cnode, convert_to_exclusive=True),
                                 dtype=float).copy()
                for child in metric.childs:
                    own -= np.asarray(cube.get_metric_values(child).cnode_values(
                        cnode, convert_to_exclusive=True), dtype=float)
                for column, value in enumerate(own):
                    if value != 0:
                        rows.append((metric.name, callpath(cnode), rank_of_column[column], value))
    frame = pd.DataFrame(rows, columns=KEY + ["value"])
    return frame.groupby(KEY, as_index=False).value.sum()  # threads of one rank summed


def location_ranks(path: Path) -> list[int]:
    """The MPI rank of each data column: columns run in location Id order.

    (pycubexr labels columns in tree order instead; in the pthread file, where the two
    differ, the trace's MPI_Finalize durations confirm the Id order.)
    """
    with tarfile.open(path) as tar:
        root = ElementTree.fromstring(tar.extractfile("anchor.xml").read())
    pairs = [(int(loc.get("Id")), int(group.findtext("rank")))
             for group in root.iter("locationgroup") for loc in group.findall("location")]
    return [rank for _, rank in sorted(pairs)]


def test_pycubexr_reads_our_values_with_interleaved_metahosts(tmp_path):
    # Ranks 0 and 2 on metahost A, 1 and 3 on B: location columns run A's ranks first.
    metrics = (Metric("time", "Time", "sec", children=(Metric("mpi", "MPI", "sec"),)),
               Metric("visits", "Visits", "occ", dtype="UINT64"))
    paths = ("main", "main/solve", "main/solve/MPI_Recv", "main/MPI_Barrier")
    locations = make_locations([0, 1, 2, 3], ["A", "B", "A", "B"], ["a0", "b0", "a0", "b1"])
    sev = pd.DataFrame({
        "metric": ["time", "time", "mpi", "mpi", "time", "visits", "visits"],
        "callpath": ["main", "main/solve", "main/solve/MPI_Recv", "main/MPI_Barrier",
                     "main/solve/MPI_Recv", "main/solve/MPI_Recv", "main"],
        "rank": [0, 1, 2, 3, 2, 2, 1],
        "value": [1.5, 2.25, 0.5, 0.125, 0.75, 7, 1],
    })
    write_cubex(Experiment(metrics, paths, locations, sev), tmp_path / "i.cubex")
    got = sorted_sev(pycubexr_table(tmp_path / "i.cubex", rank_of_column=[0, 2, 1, 3]))
    want = sorted_sev(sev)
    assert got[KEY].equals(want[KEY])
    np.testing.assert_allclose(got.value, want.value)
    with CubexParser(tmp_path / "i.cubex") as cube:  # time is stored inclusive of mpi
        recv = [c for c in cube.all_cnodes() if cube.get_region(c).name == "MPI_Recv"][0]
        stored = cube.get_metric_values(cube.get_metric_by_name("time")).cnode_values(recv)
        assert list(stored) == [0.0, 1.25, 0.0, 0.0]


def test_all_zero_metric_is_readable(tmp_path):
    exp = experiment()
    sev = exp.severities[exp.severities.metric != "bytes_sent"]
    write_cubex(Experiment(exp.metrics, exp.callpaths, exp.locations, sev), tmp_path / "z.cubex")
    with CubexParser(tmp_path / "z.cubex") as cube:
        values = cube.get_metric_values(cube.get_metric_by_name("bytes_sent"))
        assert all(values.value(c) == 0 for c in cube.all_cnodes())
    assert "bytes_sent" not in set(read_cubex(tmp_path / "z.cubex").severities.metric)


def test_names_with_markup_are_escaped(tmp_path):
    name = 'op<int>&"x"'
    exp = Experiment((Metric("time", "Time <s>", "sec"),), ("main", f"main/{name}"),
                     make_locations([0], ["m&m"], ["<node>"]),
                     pd.DataFrame({"metric": ["time"], "callpath": [f"main/{name}"],
                                   "rank": [0], "value": [2.0]}))
    write_cubex(exp, tmp_path / "e.cubex")
    back = read_cubex(tmp_path / "e.cubex")
    assert back.callpaths == ("main", f"main/{name}")
    assert back.metrics[0].disp_name == "Time <s>"
    assert back.locations.metahost[0] == "m&m" and back.locations.node[0] == "<node>"


def scorep_files(scorep_traces):
    return sorted(scorep_traces.glob("*/profile.cubex"))


def test_scorep_reference_files_read_like_pycubexr(scorep_traces):
    files = scorep_files(scorep_traces)
    assert len(files) >= 5
    for path in files:
        exp = read_cubex(path)
        ranks = location_ranks(path)
        with CubexParser(path) as cube:
            n_cnodes = len(cube.all_cnodes())
        assert list(exp.locations["rank"]) == sorted(set(ranks))
        assert len(exp.callpaths) == n_cnodes
        # Metric-exclusive: Score-P's metric trees are flat, so pycubexr's call-tree
        # exclusive values are directly comparable.
        want = pycubexr_table(path, rank_of_column=ranks,
                              only={"time", "visits", "bytes_sent", "bytes_received"})
        got = exp.severities[exp.severities.metric.isin(want.metric.unique())]
        got, want = sorted_sev(got), sorted_sev(want)
        assert got[KEY].equals(want[KEY]), path
        np.testing.assert_allclose(got.value, want.value, rtol=1e-12, atol=1e-15)
        assert exp.attrs.get("Creator", "").startswith("Score-P")


def test_scorep_total_time_matches_inclusive_root(scorep_traces):
    path = scorep_traces / "dorsal-mpi_allreduce" / "profile.cubex"
    exp = read_cubex(path)
    with CubexParser(path) as cube:
        root = cube.get_root_cnodes()[0]
        inclusive_root = cube.get_metric_values(cube.get_metric_by_name("time")).value(root)
    total = exp.severities[exp.severities.metric == "time"].value.sum()
    assert total == pytest.approx(inclusive_root, rel=1e-12)
    assert set(exp.locations.metahost) == {"Linux"}
    assert exp.callpaths[0] == "mpi_allreduce"
    assert "mpi_allreduce/main/MPI_Allreduce" in exp.callpaths


def test_our_file_is_readable_after_reading_scorep_and_rewriting(tmp_path, scorep_traces):
    exp = read_cubex(scorep_traces / "dorsal-mpi_gather" / "profile.cubex")
    write_cubex(exp, tmp_path / "again.cubex")
    back = read_cubex(tmp_path / "again.cubex")
    got, want = sorted_sev(back.severities), sorted_sev(exp.severities)
    assert got[KEY].equals(want[KEY])
    np.testing.assert_allclose(got.value, want.value, rtol=1e-12)


# ---- bad input: one GridscopeError naming the file --------------------------------------

def test_missing_file(tmp_path):
    with pytest.raises(GridscopeError, match="no such Cube file"):
        read_cubex(tmp_path / "nope.cubex")


def test_not_a_tar(tmp_path):
    (tmp_path / "x.cubex").write_text("hello")
    with pytest.raises(GridscopeError, match="not a readable Cube4 file"):
        read_cubex(tmp_path / "x.cubex")


def test_tar_without_anchor(tmp_path):
    with tarfile.open(tmp_path / "x.cubex", "w") as tar:
        info = tarfile.TarInfo("0.index")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    with pytest.raises(GridscopeError, match="anchor.xml is missing"):
        read_cubex(tmp_path / "x.cubex")


def _rewrite_member(src: Path, dst: Path, name: str, payload: bytes) -> None:
    with tarfile.open(src) as tin, tarfile.open(dst, "w", format=tarfile.USTAR_FORMAT) as tout:
        for member in tin.getmembers():
            data = payload if member.name == name else tin.extractfile(member).read()
            member.size = len(data)
            tout.addfile(member, io.BytesIO(data))


def test_truncated_data_file(tmp_path):
    write_cubex(experiment(), tmp_path / "a.cubex")
    with tarfile.open(tmp_path / "a.cubex") as tar:
        data = tar.extractfile("0.data").read()
    _rewrite_member(tmp_path / "a.cubex", tmp_path / "b.cubex", "0.data", data[:-5])
    with pytest.raises(GridscopeError, match=r"0\.data: data file holds"):
        read_cubex(tmp_path / "b.cubex")


def test_cubew_legacy_dtype_names_are_eight_bytes(tmp_path):
    """Scalasca's scout writes "FLOAT" (a double) and "INTEGER" (an int64), as cubew does."""
    write_cubex(experiment(), tmp_path / "a.cubex")
    with tarfile.open(tmp_path / "a.cubex") as tar:
        anchor = tar.extractfile("anchor.xml").read()
    legacy = (anchor.replace(b"<dtype>DOUBLE</dtype>", b"<dtype>FLOAT</dtype>")
              .replace(b"<dtype>UINT64</dtype>", b"<dtype>INTEGER</dtype>"))
    assert legacy.count(b"FLOAT") and legacy.count(b"INTEGER")
    _rewrite_member(tmp_path / "a.cubex", tmp_path / "b.cubex", "anchor.xml", legacy)
    pd.testing.assert_frame_equal(sorted_sev(read_cubex(tmp_path / "b.cubex").severities),
                                  sorted_sev(read_cubex(tmp_path / "a.cubex").severities))


def test_broken_anchor_xml(tmp_path):
    write_cubex(experiment(), tmp_path / "a.cubex")
    _rewrite_member(tmp_path / "a.cubex", tmp_path / "b.cubex", "anchor.xml", b"<cube><metr")
    with pytest.raises(GridscopeError, match="not valid XML"):
        read_cubex(tmp_path / "b.cubex")


@pytest.mark.parametrize("change, message", [
    (dict(callpaths=("main/x", "main")), "listed before its parent"),
    (dict(callpaths=("main", "main")), "listed twice"),
    (dict(metrics=(Metric("t", "T", "sec"), Metric("t", "T", "sec"))), "listed twice"),
    (dict(metrics=(Metric("time", "T", "sec", dtype="TAU_ATOMIC"),)), "cannot write"),
    (dict(severities=pd.DataFrame({"metric": ["time"], "callpath": ["main/nope"],
                                   "rank": [0], "value": [1.0]})), "unknown call path"),
    (dict(severities=pd.DataFrame({"metric": ["time"], "callpath": ["main"],
                                   "rank": [9], "value": [1.0]})), "unknown rank"),
    (dict(severities=pd.DataFrame({"metric": ["time"], "callpath": ["main"],
                                   "rank": [0], "value": [float("nan")]})), "finite"),
])
def test_writer_rejects_inconsistent_experiments(tmp_path, change, message):
    base = dict(metrics=(Metric("time", "Time", "sec"),), callpaths=("main", "main/x"),
                locations=make_locations([0], ["m"], ["n"]),
                severities=pd.DataFrame({"metric": ["time"], "callpath": ["main"],
                                         "rank": [0], "value": [1.0]}))
    base.update(change)
    with pytest.raises(GridscopeError, match=message) as err:
        write_cubex(Experiment(**base), tmp_path / "bad.cubex")
    assert "bad.cubex" in str(err.value)
    assert not (tmp_path / "bad.cubex").exists()


def test_scorep_threads_sum_into_ranks_in_location_id_order(scorep_traces):
    # 4 ranks × 3 threads on 2 nodes, location Ids not in tree order. The values are the
    # MPI_Finalize durations of the trace (otf2-print: ENTER/LEAVE ticks at 1 GHz).
    exp = read_cubex(scorep_traces / "dorsal-mpi_pthread_hello_world" / "profile.cubex")
    sev = exp.severities
    fin = sev[(sev.metric == "time") & sev.callpath.str.endswith("main/MPI_Finalize")]
    by_rank = dict(zip(fin["rank"], fin.value))
    assert by_rank[1] == pytest.approx((597253344538085 - 597253343910006) * 1e-9, rel=0.05)  # profile and trace timers differ slightly
    assert by_rank[2] == pytest.approx((597253344344745 - 597253344335145) * 1e-9, rel=0.05)  # profile and trace timers differ slightly
    assert list(exp.locations.node) == ["epyc2", "arnaud-Desktop", "epyc2", "arnaud-Desktop"]


def test_several_call_tree_roots_get_one_artificial_root(tmp_path):
    # MPI_Init and MPI_Finalize outside main: three roots. pycubexr reads one root only.
    paths = ("MPI_Init", "main", "main/MPI_Recv", "MPI_Finalize")
    sev = pd.DataFrame({"metric": ["time"] * 4, "callpath": list(paths), "rank": [0] * 4,
                        "value": [0.5, 1.0, 0.25, 0.125]})
    exp = Experiment((Metric("time", "Time", "sec"),), paths,
                     make_locations([0], ["m"], ["n"]), sev)
    write_cubex(exp, tmp_path / "r.cubex")
    with CubexParser(tmp_path / "r.cubex") as cube:
        root = cube.get_root_cnodes()[0]
        assert cube.get_region(root).name == "program"
        assert cube.get_region(root).paradigm == "measurement"
        assert [cube.get_region(c).name for c in root.get_children()] == [
            "MPI_Init", "main", "MPI_Finalize"]
        inclusive = cube.get_metric_values(cube.get_metric_by_name("time")).value(
            root, convert_to_inclusive=True)
        assert inclusive == pytest.approx(1.875)
    back = read_cubex(tmp_path / "r.cubex")
    assert set(back.callpaths) == set(paths)
    assert "gridscope::artificial_root" not in back.attrs
    got, want = sorted_sev(back.severities), sorted_sev(sev)
    assert got[KEY].equals(want[KEY])
    np.testing.assert_allclose(got.value, want.value)
