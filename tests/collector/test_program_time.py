"""Issue 12, "the program's time": the computation between MPI calls counts.

testdata/apps/nbc.c --blocking on 4 ranks under Open MPI: rank 0 spins 20 x 2 ms on the
wall clock before each MPI_Allreduce; the others only wait in MPI. (The blocking form: the
collector does not wrap MPI_Iallreduce/MPI_Ibarrier yet, a later part of issue 12.)

Expectations, derived from the program:
- the trace's root is the program region (ProgramBegin/ProgramEnd, Score-P's convention);
- rank 0 computes at least 20 x 2 ms (a spin never ends early); on this shared 2-core
  machine with 4 ranks busy-polling in MPI a spin often ends late (measured: steps of 2 to
  13 ms), so rank 0 prints the computation time it measured itself (MPI_Wtime around the
  spins);
- rank 0's time outside MPI (the program root's own time; the program has no user regions)
  is that computation plus the gaps outside it: library load to MPI_Init and the steps
  between the spins and the MPI calls, ~0.15 ms in all when measured. SLACK allows for
  one preemption in those gaps (a few ms on a loaded machine);
- the other ranks compute nothing: each has less than SLACK outside MPI;
- total_time_s is the sum of the ranks' ProgramBegin..ProgramEnd spans (clock corrections
  change a span by ppm only), so it includes the computation, and total_time_s -
  mpi_time_s is exactly the program roots' time.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gridscope.cube.reader import read_cubex
from gstest import run_gridscope
from tests.collector import otf2text

APPS = Path(__file__).resolve().parents[2] / "testdata" / "apps"
N = 4
COMPUTE_S = 20 * 0.002
SLACK_S = 0.010
TIME = "time"


def record_nbc(work: Path, *args: str) -> tuple[Path, float]:
    """testdata/apps/nbc/nbc.c built and recorded on 4 ranks over two metahosts (ARGS go to the
    program); returns the trace folder and the compute time the program measured itself."""
    if shutil.which("mpicc") is None:
        pytest.fail("mpicc is missing (make install installs the MPI packages)")
    exe = work / "nbc"
    subprocess.run(["mpicc", "-O1", "-I", str(APPS / "common"), "-o", str(exe),
                    str(APPS / "nbc" / "nbc.c")], check=True)
    metahosts = work / "map.json"
    metahosts.write_text('{"A": ["rank:0-1"], "B": ["rank:2-3"]}')
    trace = work / "trace"
    proc = run_gridscope("record", "--metahosts", metahosts, "-o", trace, "--",
                         "mpirun", "-np", str(N), exe, *args)
    done = re.search(r"nbc done: sum 6, computed ([0-9.]+) s", proc.stdout)
    assert done, proc.stdout
    return trace, float(done.group(1))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    work = tmp_path_factory.mktemp("nbc")
    trace, computed = record_nbc(work, "--blocking")
    out = work / "analysis"
    run_gridscope("analyze", trace, "-o", out, "-j", "2", "-q")
    return trace / "traces.otf2", out, computed


@pytest.mark.slow
def test_program_region_is_defined_as_score_p_defines_it(recorded):
    anchor, _, _ = recorded
    assert otf2text.validate(anchor).returncode == 0
    regions = [a for kind, _, a in otf2text.definitions(anchor) if kind == "REGION"]
    program = [a for a in regions if a.get("Role") == "ARTIFICIAL"]
    assert len(program) == 1
    assert program[0]["Paradigm"] == "MEASUREMENT_SYSTEM"
    assert program[0]["Name"].startswith('"nbc"')  # the executable's basename
    for rank, ev in otf2text.events(anchor).items():
        assert ev[0].kind == "PROGRAM_BEGIN" and ev[-1].kind == "PROGRAM_END", rank


@pytest.mark.slow
def test_computation_counts_outside_mpi(recorded):
    anchor, out, computed = recorded
    assert computed >= COMPUTE_S
    sev = read_cubex(out / "profile.cubex").severities
    time = sev[sev["metric"] == TIME]
    root = time[time["callpath"] == "nbc"].set_index("rank")["value"]
    assert sorted(root.index) == list(range(N))
    # MPI_Wtime and the collector's clock tick alike; clock corrections differ by ppm
    assert computed * (1 - 1e-4) <= root[0] <= computed + SLACK_S
    for rank in range(1, N):
        assert root[rank] < SLACK_S, rank

    summary = json.loads((out / "summary.json").read_text())
    total, mpi = summary["total_time_s"], summary["mpi_time_s"]
    assert total - mpi == pytest.approx(root.sum(), rel=1e-9)
    spans = sum((ev[-1].time - ev[0].time) * 1e-9 for ev in otf2text.events(anchor).values())
    assert total == pytest.approx(spans, rel=1e-3)
    assert mpi / total <= 1 - computed * (1 - 1e-4) / total  # the MPI fraction leaves the computation out
