"""-j 1 (one process) and -j 2 (two processes the engine forks, local transport) give the same summary."""

from __future__ import annotations

import json
import subprocess

import pytest

from analyzer_helpers import values


@pytest.fixture(scope="module")
def bench_trace(tracegen, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "t"
    # 6 ranks on two metahosts, 200 iterations of halo exchange + Allreduce/Barrier
    subprocess.run([str(tracegen), "--bench", "6", "200", str(out)], check=True)
    return out


@pytest.mark.slow
def test_same_summary_for_one_and_two_processes(bench_trace, analyse):
    one = analyse(bench_trace, jobs=1)
    two = analyse(bench_trace, jobs=2)
    assert one["analysis"]["processes"] == 1 and two["analysis"]["processes"] == 2
    assert len(two["analysis"]["peak_rss_kb"]) == 2
    assert values(one) == values(two)
    # the synthetic run does have grid and local wait states
    assert one["patterns"]["late_sender"]["grid"] > 0
    assert one["patterns"]["late_sender"]["local"] > 0
    assert one["patterns"]["wait_at_nxn"]["grid"] > 0
    assert one["events"] > 20000


@pytest.mark.slow
def test_three_processes_on_golden_trace(make_trace, analyse):
    one = analyse(make_trace("one_to_n"), jobs=1)
    three = analyse(make_trace("one_to_n"), jobs=3)
    assert values(one) == values(three)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [2, 3])
def test_forked_processes_write_what_mpirun_processes_write(bench_trace, tmp_path, jobs):
    """The engine's files (every process's) are byte for byte those of the MPI transport
    under `mpirun -np N` (kept for benchmarks), apart from the per-process timings."""
    from analyzer_helpers import MPI_ENV
    from gridscope.analysis.engine import start_engine

    outputs = {}
    for via_mpirun in (False, True):
        scratch = tmp_path / f"mpirun-{via_mpirun}"
        scratch.mkdir()
        with pytest.MonkeyPatch.context() as env:
            for key, value in MPI_ENV.items():
                env.setenv(key, value)
            with start_engine(bench_trace / "traces.otf2", scratch, jobs, None, via_mpirun=via_mpirun) as engine:
                engine.wait()
        files = {}
        for f in sorted(scratch.iterdir()):
            if f.name == "meta.json":
                meta = json.loads(f.read_text())
                assert len(meta.pop("process_stats")) == jobs and meta["processes"] == jobs
                files[f.name] = meta
            else:
                files[f.name] = f.read_bytes()
        outputs[via_mpirun] = files
    assert outputs[False].keys() == outputs[True].keys()
    assert f"callpaths.{jobs - 1}.tsv" in outputs[False]
    assert outputs[False] == outputs[True]
