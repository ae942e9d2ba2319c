"""gridscope-actions (the predictor's reading of a trace) and `gridscope predict`'s bad input.
The expected action streams are derived by hand from the spec traces written here."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gstest import run_gridscope

from gridscope import native

# 1 tick = 1 us. Rank 0 sends, isends and waits; rank 1 receives and irecvs (its source,
# tag and size are known only at the Waitall); both Allreduce 16 bytes (recorded by
# Score-P's convention as n x 16 = 32 sent and received).
SPEC = """\
comm pair 0 1
rank 0 siteA a0
rank 1 siteB b0
0 0 10 region MPI_Init
1 0 10 region MPI_Init
0 10 enter main
0 30 40 send MPI_Send 1 7 64
0 50 60 isend MPI_Isend 1 8 128 5
0 70 90 wait MPI_Wait s:5
0 100 120 coll MPI_Allreduce MPI_COMM_WORLD -1 32 32
0 130 leave main
0 130 140 region MPI_Finalize
1 10 enter main
1 20 45 recv MPI_Recv 0 7 64
1 45 50 irecv MPI_Irecv 9
1 60 80 wait MPI_Waitall r:9:0:8:128
1 100 120 coll MPI_Allreduce MPI_COMM_WORLD -1 32 32
1 125 leave main
1 130 140 region MPI_Finalize
"""

# The time between MPI calls becomes computation (c SECONDS); MPI_Init's time is the
# replayer's own MPI_Init; communicators are built right after it (ki; comms.txt: at init),
# as no rank called a communicator constructor; the Allreduce is 16 bytes per process.
RANK0 = ["# bytes 128 slots 1", "ki", "b 0", "c 2e-05", "s 1 7 0 64", "c 1e-05",
         "is 1 8 0 128 0", "c 1e-05", "w 1 0", "c 1e-05", "x allreduce 0 -1 16", "c 1e-05",
         "e 0", "f"]
RANK1 = ["# bytes 128 slots 1", "ki", "b 0", "c 1e-05", "r 0 7 0 64", "ir 0 8 0 128 0",
         "c 1e-05", "w 1 0", "c 2e-05", "x allreduce 0 -1 16", "c 5e-06", "e 0", "c 5e-06", "f"]


def _trace(tmp_path: Path, spec: str, name: str = "t") -> Path:
    (tmp_path / f"{name}.spec").write_text(spec)
    out = tmp_path / name
    subprocess.run([str(native.binary("gs-tracegen")), str(tmp_path / f"{name}.spec"), str(out)],
                   check=True, capture_output=True)
    return out


def _actions(trace: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(native.binary("gridscope-actions")), str(trace), str(out)],
                          capture_output=True, text=True)


def test_action_streams_by_hand(tmp_path):
    trace = _trace(tmp_path, SPEC)
    proc = _actions(trace, tmp_path / "act")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "act" / "rank-0.act").read_text().splitlines() == RANK0
    assert (tmp_path / "act" / "rank-1.act").read_text().splitlines() == RANK1
    assert (tmp_path / "act" / "comms.txt").read_text().splitlines() == [
        "at init", "0 world 0", "1 self 0", "2 group 2 0 1"]
    assert (tmp_path / "act" / "vblocks.txt").read_text() == ""
    assert (tmp_path / "act" / "regions.txt").read_text().splitlines() == ["main"]


def test_communicators_built_where_every_rank_builds_one(tmp_path):
    # both ranks call MPI_Comm_split (rank 0 at 20..30): communicators are built there (kc,
    # comms.txt: at create), its 10 us would be computation were they built after MPI_Init
    spec = SPEC.replace("0 30 40 send", "0 20 30 region MPI_Comm_split\n0 30 40 send").replace(
        "1 20 45 recv", "1 12 18 region MPI_Comm_split\n1 20 45 recv")
    proc = _actions(_trace(tmp_path, spec), tmp_path / "act")
    assert proc.returncode == 0, proc.stderr
    lines = (tmp_path / "act" / "rank-0.act").read_text().splitlines()
    assert lines[:7] == ["# bytes 128 slots 1", "ki", "b 0", "c 1e-05", "kc 1e-05", "s 1 7 0 64", "c 1e-05"]
    assert (tmp_path / "act" / "comms.txt").read_text().splitlines()[0] == "at create"
    # one rank without a constructor: built after MPI_Init everywhere
    spec = SPEC.replace("0 30 40 send", "0 20 30 region MPI_Comm_split\n0 30 40 send")
    proc = _actions(_trace(tmp_path, spec, "one"), tmp_path / "act1")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "act1" / "comms.txt").read_text().splitlines()[0] == "at init"


def test_unsupported_calls_are_named(tmp_path):
    spec = SPEC.replace("0 130 leave main", "0 121 122 region MPI_Win_fence\n"
                        "0 123 124 region MPI_Put\n0 125 126 region MPI_Put\n0 130 leave main")
    proc = _actions(_trace(tmp_path, spec), tmp_path / "act")
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith("gridscope-actions: ")
    assert "MPI_Put (2x)" in line and "MPI_Win_fence (1x)" in line and "cannot be replayed" in line
    assert not (tmp_path / "act").exists()  # the streams written while reading are removed


def test_predict_unsupported_trace_one_line(tmp_path):
    spec = SPEC.replace("0 130 leave main", "0 121 122 region MPI_File_open\n0 130 leave main")
    proc = run_gridscope("predict", _trace(tmp_path, spec), "-o", tmp_path / "out",
                         "--platform", "grid5000-2", check=False)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "MPI_File_open (1x)" in proc.stderr
    assert proc.stderr.startswith("gridscope: ")


def test_predict_bad_input(tmp_path):
    trace = _trace(tmp_path, SPEC)
    cases = [
        (["--platform", "grid5000-2"], "has no site for metahosts 'siteA', 'siteB'"),
        ([], "was not recorded on a simulated platform: give --platform"),
        (["--platform", "grid5000-2", "--speedup", "main"], "want REGION=FACTOR"),
        (["--platform", "grid5000-2", "--speedup", "main=-1"], "want REGION=FACTOR"),
        (["--platform", "grid5000-2", "--placement", "block", "--speedup", "solver=0.5"],
         "has no user region 'solver'"),
        (["--platform", "grid5000-2", "--collectives", "fastest"], "not a collectives mode"),
        (["--platform", "grid5000-2", "--placement", "diagonal"], "not a placement"),
    ]
    for i, (args, problem) in enumerate(cases):
        proc = run_gridscope("predict", trace, "-o", tmp_path / f"o{i}", *args, check=False)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.startswith("gridscope: ") and proc.stderr.count("\n") == 1, proc.stderr
        assert problem in proc.stderr, (args, proc.stderr)
    proc = run_gridscope("predict", tmp_path / "nothing", "-o", tmp_path / "o", check=False)
    assert proc.returncode == 2 and "no such trace or run" in proc.stderr


def test_too_few_hosts(tmp_path):
    # 2 ranks of siteA on a platform whose siteA has one single-core node
    platform = tmp_path / "tiny.toml"
    platform.write_text('[metahost.siteA]\nnodes = 1\nbandwidth = "1Gbps"\nlatency = "0.1ms"\n'
                        '[metahost.siteB]\nnodes = 1\nbandwidth = "1Gbps"\nlatency = "0.1ms"\n'
                        '[wan]\nbandwidth = "100Mbps"\nlatency = "5ms"\n')
    spec = SPEC.replace("rank 1 siteB b0", "rank 1 siteA a1")
    proc = run_gridscope("predict", _trace(tmp_path, spec), "-o", tmp_path / "o",
                         "--platform", platform, check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "site siteA has 1 cores (1 nodes x 1) for 2 ranks" in proc.stderr


def test_vcollective_blocks_even_over_the_instance(tmp_path):
    # an MPI_Alltoallv where rank 0 sends 2 x 4 bytes and rank 1 2 x 8: rank 0 receives blocks
    # of 8 on average, rank 1 of 4 (its own block, from what it received, in its xv line);
    # replayed as they are, rank 0's sends would truncate rank 1's receive: both replay the
    # instance's mean, 6 (vblocks.txt)
    spec = SPEC.replace("0 100 120 coll MPI_Allreduce MPI_COMM_WORLD -1 32 32",
                        "0 100 120 coll MPI_Alltoallv MPI_COMM_WORLD -1 8 16").replace(
        "1 100 120 coll MPI_Allreduce MPI_COMM_WORLD -1 32 32",
        "1 100 120 coll MPI_Alltoallv MPI_COMM_WORLD -1 16 8")
    proc = _actions(_trace(tmp_path, spec), tmp_path / "act")
    assert proc.returncode == 0, proc.stderr
    for rank, own in ((0, 8), (1, 4)):
        lines = (tmp_path / "act" / f"rank-{rank}.act").read_text().splitlines()
        colls = [line for line in lines if line.startswith("x")]
        assert colls == [f"xv alltoall 0 -1 {own} 0"], (rank, colls)  # the 0th v-collective on comm 0
    assert (tmp_path / "act" / "vblocks.txt").read_text().splitlines() == ["0 0 6"]  # replayed as MPI_Alltoall
    assert '"MPI_Alltoallv replayed with equal blocks": 2' in (tmp_path / "act" / "meta.json").read_text()


def test_nonblocking_collectives_patched_at_completion(tmp_path):
    # both ranks start an MPI_Ialltoallv (request 11) and call a blocking MPI_Alltoallv; rank 0
    # completes the first after the second, rank 1 before it. The Ialltoallv's operation and
    # bytes come with its completion; its action stays where it was called. Blocks: rank 0
    # receives 16 (8 per process), rank 1 8 (4): both replay the instance's mean, 6; the
    # Alltoallv (40 received, 20 per process) is the second instance (K 1) on both ranks.
    spec = SPEC.replace("0 100 120 coll MPI_Allreduce MPI_COMM_WORLD -1 32 32",
                        "0 100 105 icoll MPI_Ialltoallv 11\n"
                        "0 106 108 coll MPI_Alltoallv MPI_COMM_WORLD -1 40 40\n"
                        "0 110 120 wait MPI_Wait c:11:MPI_Alltoallv:MPI_COMM_WORLD:-1:8:16").replace(
        "1 100 120 coll MPI_Allreduce MPI_COMM_WORLD -1 32 32",
        "1 100 105 icoll MPI_Ialltoallv 11\n"
        "1 106 108 wait MPI_Wait c:11:MPI_Alltoallv:MPI_COMM_WORLD:-1:16:8\n"
        "1 110 120 coll MPI_Alltoallv MPI_COMM_WORLD -1 40 40")
    proc = _actions(_trace(tmp_path, spec), tmp_path / "act")
    assert proc.returncode == 0, proc.stderr
    lines = {r: (tmp_path / "act" / f"rank-{r}.act").read_text().splitlines() for r in (0, 1)}
    # ixv OP COMM ROOT OWN-BLOCK SLOT K, xv OP COMM ROOT OWN-BLOCK K
    assert lines[0][10:] == ["ixv alltoall 0 -1 8 0 0", "c 1e-06", "xv alltoall 0 -1 20 1", "c 2e-06",
                             "w 1 0", "c 1e-05", "e 0", "f"]
    assert lines[1][9:] == ["ixv alltoall 0 -1 4 0 0", "c 1e-06", "w 1 0", "c 2e-06",
                            "xv alltoall 0 -1 20 1", "c 5e-06", "e 0", "c 5e-06", "f"]
    assert (tmp_path / "act" / "vblocks.txt").read_text().splitlines() == ["0 0 6", "0 1 20"]
    assert '"MPI_Ialltoallv replayed with equal blocks": 2' in (tmp_path / "act" / "meta.json").read_text()


def test_neighbourhood_collectives_are_refused(tmp_path):
    # Score-P records them as the all-to-all they generalise; replaying them as one would
    # send to every rank instead of the neighbours
    spec = SPEC.replace("0 130 leave main", "0 121 122 region MPI_Ineighbor_alltoall\n0 130 leave main")
    proc = _actions(_trace(tmp_path, spec), tmp_path / "act")
    assert proc.returncode == 2 and "MPI_Ineighbor_alltoall (1x)" in proc.stderr
